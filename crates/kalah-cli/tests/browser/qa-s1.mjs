import { chromium } from 'playwright-core';
const base = 'http://127.0.0.1:18200';
const shots = '/tmp/qa-shots/';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const logs = [];
page.on('console', (m) => logs.push('console ' + m.type() + ': ' + m.text()));
page.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
page.on('requestfailed', (r) => logs.push('requestfailed: ' + r.url()));
async function settle() { await page.waitForTimeout(700); await page.waitForLoadState('networkidle'); }
async function state(tag) {
  const s = await page.evaluate(() => ({
    url: location.search,
    status: document.querySelector('#status').innerText,
    feedback: document.querySelector('#feedback').innerText,
    record: document.querySelector('#record').innerText,
    recordHTML: document.querySelector('#record').innerHTML.slice(0, 1500),
  }));
  console.log('---', tag, JSON.stringify(s, null, 1));
}
async function click(h) { await page.click(`#board [data-house="${h}"]`); await settle(); }
await page.goto(base + '/?houses=4&seeds=3'); await settle();
await state('open'); await page.screenshot({ path: shots + 'd01-open.png', fullPage: true });
await click('S2'); await state('after S2');
await click('S3'); await state('after S3 (maybe extra turn)');
await click('N1'); await state('after N1');
await page.screenshot({ path: shots + 'd02-played.png', fullPage: true });
await page.click('#undo'); await settle(); await state('undo');
await click('N2'); await state('after N2 variation');
await page.screenshot({ path: shots + 'd03-variation.png', fullPage: true });
const url = page.url();
await page.reload(); await settle(); await state('reloaded');
await page.screenshot({ path: shots + 'd04-reloaded.png', fullPage: true });
console.log(logs.join('\n'));
await browser.close();
