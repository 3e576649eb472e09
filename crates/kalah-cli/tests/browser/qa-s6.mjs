import { open, base, shots, settle, state, click, legal } from './qa-lib.mjs';
import { readFileSync } from 'node:fs';
const d = JSON.parse(readFileSync('/tmp/qa-deep43.json', 'utf8'));
const { browser, page, logs } = await open({ width: 390, height: 844 });
await page.goto(base + `/?position=${encodeURIComponent(d.end)}&start=${encodeURIComponent(d.start)}&moves=${encodeURIComponent(d.moves)}`); await settle(page, 2000);
const H = await page.evaluate(() => document.body.scrollHeight);
console.log('height', H, 'scrollWidth', await page.evaluate(() => document.documentElement.scrollWidth));
for (let y = 0, k = 0; y < H; y += 800, k++) {
  await page.screenshot({ path: shots + `p-deep-${k}.png`, clip: { x: 0, y, width: 390, height: Math.min(844, H - y) }, fullPage: true });
}
// overflow check: elements wider than viewport
const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 391).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 20));
console.log('wide', wide);
console.log(logs.join('\n'));
await browser.close();
