// Browser half of tests/web/test_web_lobby.py: a person registers a name on the page, finds the game in
// the Open games pane, joins a seat, waits for the others, then plays a legal move by clicking it.
// Input: one JSON argument {base, chromium, artifacts, name, game_id, seat}; output: one JSON line.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(join(process.cwd(), "clients/web/package.json"));
const { chromium } = require("playwright-core");

const plan = JSON.parse(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), "ge-chromium-"));
const result = { console: [] };
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: plan.chromium, headless: true, viewport: { width: 1500, height: 1000 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"],
});
const version = async (page) => Number(await page.locator("#version").textContent({ timeout: 15000 }));
try {
  const page = ctx.pages()[0] ?? await ctx.newPage();
  page.on("console", (m) => { if (m.type() === "error") result.console.push(m.text()); });
  page.on("pageerror", (e) => result.console.push(String(e)));
  // Slow game list: the Player pane must take a registration before the page's first fetch returns.
  await page.route(/\/api\/games$/, async (route) => {
    await new Promise((r) => setTimeout(r, 2000));
    await route.continue();
  });
  await page.goto(`${plan.base}/`);
  await page.fill("#player-name", plan.name);
  await page.click("#player-register");
  await page.waitForFunction((n) => document.querySelector("#player-me")?.textContent === `you are ${n}`, plan.name,
                             { timeout: 15000 });
  const joinButton = page.locator(`#open-games li[data-game-id="${plan.game_id}"] button.join[data-seat="${plan.seat}"]`);
  await joinButton.waitFor({ timeout: 15000 });
  result.listed = await page.locator(`#open-games li[data-game-id="${plan.game_id}"]`).textContent();
  await joinButton.click();
  await page.waitForFunction(() => location.hash.includes("token="), null, { timeout: 15000 });
  await page.waitForSelector("#waiting", { timeout: 15000 });
  result.waiting = await page.locator("#status").textContent();
  // Slow legal moves: a redraw started by the other seats' events is still waiting for them when the
  // buttons of the previous draw are clicked; the click must still play the move it shows.
  await page.route(/ListPompeiiMoves$/, async (route) => {
    await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });
  console.log(JSON.stringify({ phase: "waiting" })); // the test's other players join now
  await page.waitForSelector("button.move", { timeout: 60000 });
  const v0 = await version(page);
  await page.locator("button.move").first().click();
  await page.waitForFunction((v) => Number(document.querySelector("#version")?.textContent) > v, v0, { timeout: 30000 });
  result.v0 = v0;
  result.v1 = await version(page);
  result.mode = await page.locator("#mode").textContent();
  result.hash_has_token = (await page.evaluate(() => location.hash)).includes("token=");
  await page.screenshot({ path: join(plan.artifacts, "lobby-joined.png"), fullPage: true });
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
