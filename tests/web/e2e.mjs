// Browser half of tests/web/test_web_e2e.py: Debian's Chromium driven by playwright-core (no browser
// download). Input: one JSON argument (the plan); output: one JSON line with what the page showed.
//   spectate: [{game, id}]  open each as a spectator, wait until the board moves, screenshot
//   play: {game, id, token} open as that seat, click a legal move on the board, wait for the change
//   switch: {from: {game, id}, to: {game, id, lines}} open `from` until its Events pane has lines, switch the
//           hash to `to` (no reload), wait for `lines` lines (or 10 s): both panes' lines
//   create: [{game, seats, demo}]  fill New game, click create, open the created game with its "watch" link
//   errors: {missing: {game, id}, good: {game, id}, bad: {game, seats}, create: {game, seats}}  an error shown
//           for a game that does not exist, then the good game opened; a create, a refused create, a create
//   track: {id, temperatures}  an Eruption game whose view's temperatures are replaced: the track's labels
//   regions: {game, id}  the Small World regions as drawn (circle stroke, data-seat) next to the view
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
const text = async (page, sel) => (await page.locator(sel).textContent()) ?? "";
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
  // New game: pick the game and seats, tick or untick demo, create; wait for a new "created" line or an error
  const createOn = async (page, c) => {
    await page.selectOption("#game", c.game);
    await page.fill("#seats", String(c.seats));
    await page.setChecked("#demo", !!c.demo);
    const before = await text(page, "#created");
    await page.click("#create");
    await page.waitForFunction((b) => (document.querySelector("#created")?.textContent ?? "") !== b
      && /created/.test(document.querySelector("#created")?.textContent ?? "")
      || (document.querySelector("#error")?.textContent ?? "") !== "", before, { timeout: 15000 });
    await page.waitForTimeout(300);
    const created = await text(page, "#created");
    return { ...c, created, error: await text(page, "#error"), id: (/created (\S+):/.exec(created) ?? [])[1] ?? "" };
  };
  const openedBoard = async (page, id) => {
    await page.waitForFunction((i) => document.querySelector("#mode")?.textContent?.includes(i), id, { timeout: 15000 });
    await page.waitForSelector("#board-svg", { timeout: 15000 });
    await page.waitForTimeout(500);
  };
  if (plan.create) {
    result.create = [];
    await page.goto(`${plan.base}/`);
    await page.waitForSelector("#game option", { state: "attached", timeout: 15000 });
    for (const c of plan.create) {
      const r = await createOn(page, c);
      if (r.id) {
        await page.locator("#created a", { hasText: "watch" }).click();
        await openedBoard(page, r.id);
        r.mode = await text(page, "#mode");
        r.svg = await page.locator("svg#board-svg, div#board-svg").count();
        r.errorAfterOpen = await text(page, "#error");
      }
      result.create.push(r);
    }
    await page.screenshot({ path: join(plan.artifacts, "create.png"), fullPage: true });
  }
  if (plan.errors) {
    const e = plan.errors, out = {};
    await page.goto(`${plan.base}/#game=${e.missing.game}&id=${e.missing.id}`);
    await page.waitForFunction(() => document.querySelector("#error")?.textContent, null, { timeout: 15000 });
    out.missingError = await text(page, "#error");
    // a game that does not exist is not asked for again, and its error does not come back over a create
    let asked = 0;
    const count = (r) => { if ((r.postData() ?? "").includes(e.missing.id)) asked++; };
    page.on("request", count);
    out.createdOverMissing = await createOn(page, e.create);
    await page.waitForTimeout(3000);
    out.errorAfterCreateOverMissing = await text(page, "#error");
    out.missingAskedAgain = asked;
    page.off("request", count);
    await page.evaluate((h) => { location.hash = h; }, `game=${e.good.game}&id=${e.good.id}`);
    await openedBoard(page, e.good.id);
    out.errorAfterOpen = await text(page, "#error");
    out.first = await createOn(page, e.create);
    out.refused = await createOn(page, e.bad);
    await page.evaluate((h) => { location.hash = h; }, `game=${e.good.game}&id=${e.good.id}&x=1`);
    await openedBoard(page, e.good.id);
    out.errorAfterReopen = await text(page, "#error");
    out.refused2 = await createOn(page, e.bad);
    out.second = await createOn(page, e.create);
    result.errors = out;
  }
  if (plan.track) {
    // the view as served, with the temperatures replaced (Connect JSON: the page's transport default)
    await page.route(/EruptionService\/GetEruptionView$/, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      if (body.view) body.view.temperatures = plan.track.temperatures;
      await route.fulfill({ response: res, json: body });
    });
    await page.goto(`${plan.base}/#game=eruption&id=${plan.track.id}`);
    await page.waitForSelector("svg.track text", { timeout: 15000 });
    await page.waitForTimeout(500);
    result.track = await page.evaluate(() => {
      const svg = document.querySelector("svg.track");
      const vb = svg.viewBox.baseVal;
      return { width: vb.width, x: vb.x, labels: [...svg.querySelectorAll("text")].map((t) => {
        const b = t.getBBox();
        return { text: t.textContent, left: b.x, right: b.x + b.width };
      }) };
    });
    await page.locator("svg.track").screenshot({ path: join(plan.artifacts, "eruption-track.png") });
    await page.screenshot({ path: join(plan.artifacts, "eruption-track-page.png"), fullPage: true });
    await page.unroute(/EruptionService\/GetEruptionView$/);
  }
  if (plan.regions) {
    await page.goto(`${plan.base}/#game=${plan.regions.game}&id=${plan.regions.id}`);
    await page.waitForSelector("#board-svg g.region", { timeout: 15000 });
    await page.waitForTimeout(500);
    result.regions = {
      drawn: await page.evaluate(() => [...document.querySelectorAll("#board-svg g.region")].map((g) => ({
        region: Number(g.getAttribute("data-region")), seat: g.getAttribute("data-seat"),
        stroke: g.querySelector("circle")?.getAttribute("stroke") }))),
      view: JSON.parse(await text(page, "#raw pre")),
    };
    await page.screenshot({ path: join(plan.artifacts, `regions-${plan.regions.game}.png`), fullPage: true });
  }
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
