import { open, base, shots, settle, state, click, legal } from './qa-lib.mjs';
const start = '3,3,3,3,0,3,3,3,3,0 S';
const p1 = '3,0,4,4,1,3,3,3,3,0 S'; // after S2
const p2 = '3,0,0,5,2,4,4,3,3,0 N';
const E = encodeURIComponent;
const cases = [
  ['parens20000', p2, '('.repeat(20000)],
  ['nestedvalid', p2, 'S2' + '(S1'.repeat(3000) + ')'.repeat(3000) + '.S3'],
  ['dupvars3000', p2, 'S2' + '(S1)'.repeat(3000) + '.S3'],
  ['X15000', p2, 'X'.repeat(15000)],
  ['S2x5000', p2, Array(5000).fill('S2').join('.')],
];
for (const [name, pos, moves] of cases) {
  const { browser, page, logs } = await open();
  const t0 = Date.now();
  let ok = true;
  try {
    await page.goto(base + `/?position=${E(pos)}&start=${E(start)}&moves=${E(moves)}`, { timeout: 60000 });
    await settle(page, 2000);
  } catch (e) { ok = false; console.log('ERR', e.message.slice(0, 200)); }
  console.log(name, 'len', moves.length, 'ms', Date.now() - t0);
  const s = await page.evaluate(() => ({ status: document.querySelector('#status')?.innerText, fb: document.querySelector('#feedback')?.innerText.length, fbStart: document.querySelector('#feedback')?.innerText.slice(0, 150), record: document.querySelector('#record')?.innerText.length, plies: document.querySelectorAll('#record .ply').length, url: location.search.length }));
  console.log(JSON.stringify(s));
  await page.screenshot({ path: shots + `h-${name}.png` });
  if (logs.length) console.log('  logs:', logs.slice(0, 5).join(' | ').slice(0, 600), logs.length);
  await browser.close();
}
