import { open, base, shots, settle, state, click, legal } from './qa-lib.mjs';
import { readFileSync } from 'node:fs';
for (const [tag, file] of [['43', '/tmp/qa-deep43.json'], ['64', '/tmp/qa-deep64.json']]) {
  const d = JSON.parse(readFileSync(file, 'utf8'));
  for (const vp of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const { browser, page, logs } = await open(vp);
    const url = `/?position=${encodeURIComponent(d.end)}&start=${encodeURIComponent(d.start)}&moves=${encodeURIComponent(d.moves)}`;
    const t0 = Date.now();
    await page.goto(base + url); await settle(page, 3000);
    console.log('load ms', Date.now() - t0);
    const s = await state(page, `deep ${tag} ${vp.width}`);
    const w = vp.width;
    await page.screenshot({ path: shots + `f-deep${tag}-${w}.png`, fullPage: true });
    // click the deepest variation move
    const plies = await page.$$('#record .ply');
    console.log('plies', plies.length);
    await plies[Math.floor(plies.length / 2)].click(); await settle(page, 1500);
    const s2 = await state(page, `clicked middle ply ${tag} ${w}`);
    await page.screenshot({ path: shots + `f-deep${tag}-${w}-clicked.png`, fullPage: true });
    await page.reload(); await settle(page, 3000);
    const s3 = await state(page, `reload after click ${tag} ${w}`);
    console.log('record same after reload:', s2.record === s3.record, 'url same:', s2.url === s3.url);
    if (logs.length) console.log('   logs:', logs.join(' | '));
    await browser.close();
  }
}
