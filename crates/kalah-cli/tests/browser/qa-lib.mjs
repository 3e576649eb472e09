import { chromium } from 'playwright-core';
export const base = 'http://127.0.0.1:18200';
export const shots = '/tmp/qa-shots/';
export async function open(viewport = { width: 1280, height: 800 }) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport });
  const logs = [];
  page.on('console', (m) => logs.push('console ' + m.type() + ': ' + m.text()));
  page.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
  page.on('requestfailed', (r) => logs.push('requestfailed: ' + r.url()));
  page.on('response', (r) => { if (r.status() >= 400) logs.push('HTTP ' + r.status() + ' ' + r.url().slice(0, 200)); });
  return { browser, page, logs };
}
export async function settle(page, ms = 700) { await page.waitForTimeout(ms); await page.waitForLoadState('networkidle'); }
export async function state(page, tag) {
  const s = await page.evaluate(() => ({
    url: decodeURIComponent(location.search),
    status: document.querySelector('#status').innerText,
    feedback: document.querySelector('#feedback').innerText,
    record: document.querySelector('#record').innerText.replace(/\n/g, ' '),
    now: document.querySelector('#record .now')?.innerText,
    undo: !document.querySelector('#undo').disabled, redo: !document.querySelector('#redo').disabled,
  }));
  console.log('---', tag, JSON.stringify(s));
  return s;
}
export async function click(page, h) { await page.click(`#board [data-house="${h}"]`); await settle(page); }
export async function legal(page) { return page.$$eval('#board .badge', (bs) => bs.map((b) => b.dataset.house)); }
