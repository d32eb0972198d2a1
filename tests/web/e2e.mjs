// Browser half of tests/web/test_web_e2e.py: Debian's Chromium driven by playwright-core (no browser
// download). Input: one JSON argument (the plan); output: one JSON line with what the page showed.
//   spectate: [{game, id}]  open each as a spectator, wait until the board moves, screenshot
//   play: {game, id, token} open as that seat, click a legal move on the board, wait for the change
//   switch: {from: {game, id}, to: {game, id, lines}} open `from` until its Events pane has lines, switch the
//           hash to `to` (no reload), wait for `lines` lines (or 10 s): both panes' lines
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(join(process.cwd(), "clients/web/package.json"));
const { chromium } = require("playwright-core");

const plan = JSON.parse(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), "ge-chromium-"));
const result = { spectate: [], play: null, console: [] };
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: plan.chromium ?? "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1500, height: 1000 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"],
});
const version = async (page) => Number(await page.locator("#version").textContent({ timeout: 15000 }));

try {
  const page = ctx.pages()[0] ?? await ctx.newPage();
  page.on("console", (m) => { if (m.type() === "error") result.console.push(m.text()); });
  page.on("pageerror", (e) => result.console.push(String(e)));

  for (const g of plan.spectate ?? []) {
    await page.goto(`${plan.base}/#game=${g.game}&id=${g.id}`);
    await page.waitForSelector("#board-svg", { timeout: 15000 });
    const first = await version(page);
    // live: the stream must bring newer versions without a reload
    // (a short game, e.g. Kuhn poker, may be over before the page opens it: then it shows the end)
    await page.waitForFunction((v) => Number(document.querySelector("#version")?.textContent) > v
                               || /over: winners/.test(document.querySelector("#status")?.textContent ?? ""), first,
                               { timeout: 30000 });
    const later = await version(page);
    const over = /over: winners/.test(await page.locator("#status").textContent());
    const raw = JSON.parse(await page.locator("#raw pre").textContent());
    await page.screenshot({ path: join(plan.artifacts, `spectate-${g.game}.png`), fullPage: true });
    result.spectate.push({
      game: g.game, first, later, over, svg: await page.locator("svg#board-svg, div#board-svg").count(),
      targets: await page.locator("[data-moves]").count(),
      moveButtons: await page.locator("button.move").count(),
      mode: await page.locator("#mode").textContent(),
      events: (await page.locator("#events").textContent()).split("\n").filter(Boolean),
      view: raw,
    });
    await page.goto("about:blank");
  }

  if (plan.play) {
    const p = plan.play;
    await page.goto(`${plan.base}/#game=${p.game}&id=${p.id}&token=${encodeURIComponent(p.token)}`);
    await page.waitForSelector("#board-svg [data-moves]", { timeout: 30000 });
    const before = await page.locator("#board-svg").innerHTML();
    const v0 = await version(page);
    await page.screenshot({ path: join(plan.artifacts, `play-${p.game}-before.png`), fullPage: true });
    const target = page.locator("#board-svg [data-moves]").first();
    const moves = await target.getAttribute("data-moves");
    await target.click();
    if (moves.includes(",")) await page.locator("button.move").first().click(); // several moves on that square
    await page.waitForFunction((v) => Number(document.querySelector("#version")?.textContent) > v, v0,
                               { timeout: 15000 });
    await page.waitForTimeout(300);
    const after = await page.locator("#board-svg").innerHTML();
    await page.screenshot({ path: join(plan.artifacts, `play-${p.game}-after.png`), fullPage: true });
    result.play = { v0, v1: await version(page), changed: before !== after,
                    error: await page.locator("#error").textContent(),
                    persons: await page.locator("#board-svg .person").count() };
  }
  if (plan.switch) {
    const { from, to } = plan.switch;
    const lines = async () => (await page.locator("#events").textContent()).split("\n").filter(Boolean);
    await page.goto(`${plan.base}/#game=${from.game}&id=${from.id}`);
    await page.waitForFunction(() => document.querySelector("#events")?.textContent, null, { timeout: 30000 });
    const before = await lines();
    await page.evaluate((h) => { location.hash = h; }, `game=${to.game}&id=${to.id}`);
    await page.waitForFunction((id) => document.querySelector("#mode")?.textContent?.includes(id), to.id,
                               { timeout: 15000 });
    await page.waitForFunction((n) => (document.querySelector("#events")?.textContent ?? "").split("\n")
      .filter(Boolean).length >= n, to.lines, { timeout: 10000 }).catch(() => {});
    await page.waitForTimeout(500);
    result.switch = { before, after: await lines(), mode: await page.locator("#mode").textContent() };
  }
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
