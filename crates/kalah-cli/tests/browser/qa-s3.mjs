import { open, base, shots, settle, state, click, legal } from './qa-lib.mjs';
const { browser, page, logs } = await open();
const start = '3,3,3,3,0,3,3,3,3,0+S';
const cases = [
  ['unclosed', `/?start=${start}&moves=S2(S3.N1`],
  ['S9', `/?start=${start}&moves=S9`],
  ['S9 with houses', `/?houses=4&seeds=3&moves=S9`],
  ['illegal N1 first', `/?start=${start}&moves=N1`],
  ['empty house', `/?start=${start}&moves=S2.S2`],
  ['lowercase', `/?start=${start}&moves=s2.s3`],
  ['at=99', `/?start=${start}&moves=S2.S3&at=99`],
  ['at=-1', `/?start=${start}&moves=S2.S3&at=-1`],
  ['at=abc', `/?start=${start}&moves=S2.S3&at=abc`],
  ['position mismatch', `/?position=3,3,3,3,0,3,3,3,3,0+N&start=${start}&moves=S2`],
  ['moves no start', `/?moves=S2.S3`],
  ['bad position', `/?position=1,2,3`],
  ['houses=9', `/?houses=9&seeds=3`],
  ['seeds=0', `/?houses=4&seeds=0`],
  ['trailing dot', `/?start=${start}&moves=S2.`],
  ['double dot', `/?start=${start}&moves=S2..S3`],
  ['empty var', `/?start=${start}&moves=S2()S3`],
  ['var first', `/?start=${start}&moves=(S1)S2.S3`],
  ['illegal in var', `/?start=${start}&moves=S2.S3(N9).N1`],
  ['extra close', `/?start=${start}&moves=S2.S3).N1`],
  ['capture=bogus', `/?houses=4&seeds=3&capture=bogus`],
  ['play=X', `/?houses=4&seeds=3&play=X`],
];
let i = 0;
for (const [name, url] of cases) {
  logs.length = 0;
  await page.goto(base + url); await settle(page);
  const s = await state(page, name);
  if (['unclosed', 'S9', 'position mismatch', 'bad position', 'houses=9', 'var first'].includes(name)) await page.screenshot({ path: shots + `e${String(++i).padStart(2, '0')}-${name.replace(/\W+/g, '_')}.png` });
  if (logs.length) console.log('   logs:', logs.join(' | '));
}
await browser.close();
