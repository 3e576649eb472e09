import { open, base, shots, settle, state, click, legal } from './qa-lib.mjs';
const { browser, page, logs } = await open();
const start = '3,3,3,3,0,3,3,3,3,0+S';
const p2 = '3,0,0,5,2,4,4,3,3,0+N'; // after S2.S3
const cases = [
  ['good', `/?position=${p2}&start=${start}&moves=S2.S3`],
  ['houses+moves', `/?houses=4&seeds=3&moves=S2.S3`],
  ['at=abc', `/?position=${p2}&start=${start}&moves=S2.S3&at=abc`],
  ['at=99', `/?position=${p2}&start=${start}&moves=S2.S3&at=99`],
  ['at=1.5', `/?position=${p2}&start=${start}&moves=S2.S3&at=1.5`],
  ['side-form position', `/?position=S:3-0-0-5:2%20N:4-4-3-3:0%20N&start=${start}&moves=S2.S3`],
  ['position with %20', `/?position=3,0,0,5,2,4,4,3,3,0%20N&start=${start}&moves=S2.S3`],
  ['start side form', `/?position=${p2}&start=S:3-3-3-3:0%20N:3-3-3-3:0%20S&moves=S2.S3`],
  ['start lowercase s', `/?position=${p2}&start=3,3,3,3,0,3,3,3,3,0+s&moves=S2.S3`],
  ['illegal move in good frame', `/?position=${p2}&start=${start}&moves=S2.N1`],
  ['S9 good frame', `/?position=${p2}&start=${start}&moves=S9`],
  ['var first good', `/?position=${p2}&start=${start}&moves=(S1)S2.S3`],
  ['capture empty w/ moves', `/?position=${p2}&start=${start}&moves=S2.S3&capture=empty`],
];
for (const [name, url] of cases) {
  logs.length = 0;
  await page.goto(base + url); await settle(page, 1000);
  await state(page, name);
  if (logs.length) console.log('   logs:', logs.join(' | '));
}
await browser.close();
