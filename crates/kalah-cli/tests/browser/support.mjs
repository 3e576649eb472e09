// What the browser tests of the board explorer share (explorer.mjs,
// issue64.mjs): the browser, the checks, the API of the server under test,
// axe-core, and the checks of what the page shows against the API.

import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';

// axe-core, the accessibility checker, run in the page (issue 54).
const AXE = readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/** The longest a single wait may take, in ms. */
export const STEP = 20_000;

/** Debian's headless Chromium, as the tests launch it. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export function check(ok, what) {
  if (!ok) throw new Error(what);
}

const signed = (v) => (v > 0 ? '+' + v : String(v));

/** A move's value as the page writes it, for `side` (the mover's, turned over for the other side). */
export function valueText(m, mover, side = mover) {
  const [lower, upper] = side === mover ? [m.lower, m.upper] : [-m.upper, -m.lower];
  return lower === upper ? signed(lower) : `${signed(lower)}..${signed(upper)}`;
}

const sorted = (o) => Object.fromEntries(Object.entries(o).sort());

/** The values on the board's houses, by house name ("S2": "+8"). */
export async function boardValues(page) {
  return page.$$eval('#board .badge', (badges) => Object.fromEntries(badges.map((b) => [b.dataset.house, b.dataset.value])));
}

/** The moves of the record, in the order they are written ("start", "S3", ...: names, without marks). */
export async function recordMoves(page, selector = '#record .ply') {
  return page.$$eval(selector, (b) => b.map((x) => x.dataset.move || x.textContent.replace(/[?!]+$/, '')));
}

/** Runs axe-core on the page: no serious or critical violation of WCAG 2 A/AA (`where` names the page's state). */
export async function accessible(page, where) {
  if (!(await page.evaluate(() => typeof axe !== 'undefined'))) await page.evaluate(AXE);
  const found = await page.evaluate(() => axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }));
  const bad = found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const said = bad.map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  check(bad.length === 0, `axe-core, ${where}: ${said.join('; ')}`);
  console.log(`axe-core, ${where}: no serious or critical violation (${found.violations.length} minor)`);
}

/**
 * On a phone: every text at least 12 px as drawn (SVG text scaled by its
 * picture), every control at least 44 px each way, and every link at
 * least 44 px tall (the skip link, off screen until focused, aside).
 */
export async function fitForFingers(page) {
  const found = await page.evaluate(() => {
    const small = [];
    for (const e of document.querySelectorAll('body *')) {
      if (!e.getClientRects().length || !e.checkVisibility()) continue;
      if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      const scale = e instanceof SVGElement && e.getScreenCTM() ? Math.hypot(e.getScreenCTM().a, e.getScreenCTM().b) : 1;
      const px = parseFloat(getComputedStyle(e).fontSize) * scale;
      if (px < 11.95) small.push(`"${e.textContent.trim().slice(0, 20)}" ${px.toFixed(1)} px`);
    }
    const tiny = [];
    for (const e of document.querySelectorAll('button, select, input, textarea, [role="button"], [role="slider"], [tabindex="0"]')) {
      const r = e.getBoundingClientRect();
      if (!r.width || !e.checkVisibility()) continue;
      if (r.width < 44 || r.height < 44) tiny.push(`${e.id || e.dataset.house || e.textContent.trim().slice(0, 12)} ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
    }
    for (const e of document.querySelectorAll('a[href]:not(.skip)')) {
      const r = e.getBoundingClientRect();
      if (!r.width || !e.checkVisibility()) continue;
      if (r.height < 44) tiny.push(`link "${e.textContent.trim().slice(0, 20)}" ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
    }
    return { small, tiny };
  });
  check(found.small.length === 0, `text under 12 px on a phone: ${found.small.join(', ')}`);
  check(found.tiny.length === 0, `targets under 44 px on a phone: ${found.tiny.join(', ')}`);
}

/** The API of the server at `base`, and the checks of a page against it. */
export function server(base) {
  async function api(path) {
    const response = await fetch(base + path);
    check(response.ok, `${path}: status ${response.status}`);
    return response.json();
  }

  /**
   * Waits until the page shows the analysis of `position`, then checks its
   * values against the API's: on the board, for the side at the bottom
   * (`view`, South unless the board is turned round), and listed best first.
   */
  async function showsAnalysisOf(page, position, rules, view = 'S') {
    const ask = () => api('/api/v1/analysis?' + new URLSearchParams({ position, ...rules }));
    let wanted = await ask();
    await page.waitForFunction(
      (p) => new URLSearchParams(location.search).get('position') === p && !document.querySelector('#status.loading'),
      wanted.position,
      { timeout: STEP },
    );
    if (wanted.moves.length) await page.waitForSelector('#board .badge', { timeout: STEP });
    // The page and the API agree once both have the same answer: under
    // load one may hold bounds that a search finishing meanwhile (a kept
    // answer, a background search) has made exact for the other. Asked
    // again for up to a step, never longer.
    const expect = (w) => Object.fromEntries(w.moves.map((m) => [w.to_move + m.house, valueText(m, w.to_move, view)]));
    const since = Date.now();
    let shown = await boardValues(page);
    while (JSON.stringify(sorted(shown)) !== JSON.stringify(sorted(expect(wanted))) && Date.now() - since < STEP) {
      await new Promise((done) => setTimeout(done, 500));
      [wanted, shown] = [await ask(), await boardValues(page)];
    }
    const expected = expect(wanted);
    check(JSON.stringify(sorted(shown)) === JSON.stringify(sorted(expected)), `values on the board ${JSON.stringify(shown)}, the API says ${JSON.stringify(expected)} for ${view} (${position})`);
    const listed = await page.$$eval('#moves li', (items) => items.map((li) => li.dataset.house));
    check(JSON.stringify(listed) === JSON.stringify(wanted.moves.map((m) => wanted.to_move + m.house)), `moves listed ${listed}, best first by the API: ${wanted.moves.map((m) => m.house)}`);
    const counts = await page.$$eval('#board [data-house] .count, #board [data-store] .count', (cells) => cells.map((c) => c.textContent));
    check(counts.length === 2 * wanted.houses + 2, `${counts.length} pits drawn for ${wanted.houses} houses a side`);
    return wanted;
  }

  return { api, showsAnalysisOf };
}

/**
 * Runs `body(browser)` with a test's frame: `part` names the stage for a
 * failure, a picture of `page()` is taken when one fails, and the process
 * exits 0 when every check held, 1 with the first that failed, after
 * `minutes` at most.
 */
export function run(name, minutes, body) {
  let stage = 'starting';
  const part = (what) => {
    stage = what;
    console.log(`${name}: ${what}`);
  };
  const timer = setTimeout(() => {
    console.error(`${name}: the browser test took over ${minutes} minutes`);
    process.exit(1);
  }, minutes * 60_000);
  const main = async () => {
    const browser = await launch();
    const pages = [];
    const failures = [];
    /** A new page in `context` whose errors, and requests beyond `servers`, fail the test; `allowed` lets a console error pass. */
    const watched = async (context, servers, allowed = () => false) => {
      const page = await context.newPage();
      page.on('pageerror', (e) => failures.push(`page error (${stage}): ${e.message}`));
      page.on('console', (m) => m.type() === 'error' && !allowed(m, stage) && failures.push(`console error (${stage}): ${m.text()}`));
      page.on('request', (r) => !servers.some((s) => r.url().startsWith(s)) && failures.push('a request elsewhere: ' + r.url()));
      pages.push(page);
      return page;
    };
    try {
      await body({ browser, part, watched });
    } catch (e) {
      const picture = (process.env.SHOTS_ON_FAILURE || process.env.TMPDIR || '/tmp') + `/${name}-failure.png`;
      const page = pages.at(-1);
      if (page) await page.screenshot({ path: picture, fullPage: true }).catch(() => {});
      throw new Error(`${stage}: ${e.message} (the page as it was: ${picture})`);
    } finally {
      await browser.close();
    }
    check(failures.length === 0, failures.join('\n'));
  };
  main()
    .then(() => {
      clearTimeout(timer);
      console.log(`${name}: every check held`);
    })
    .catch((e) => {
      clearTimeout(timer);
      console.error(`${name}: ${e.message}`);
      process.exit(1);
    });
}
