import { open, base, shots, settle, state, click, legal } from './qa-lib.mjs';
const { browser, page, logs } = await open();
await page.goto(base + '/?houses=4&seeds=3'); await settle(page);
for (const h of ['S2', 'S3', 'N2', 'S1']) await click(page, h);
await state(page, 'played S2 S3 N2 S1');
await page.goBack(); await settle(page); await state(page, 'browser back 1');
await page.goBack(); await settle(page); await state(page, 'browser back 2');
await page.goForward(); await settle(page); await state(page, 'browser fwd 1');
// keyboard arrows
await page.keyboard.press('ArrowLeft'); await settle(page); await state(page, 'ArrowLeft');
await page.keyboard.press('ArrowRight'); await settle(page); await state(page, 'ArrowRight');
await page.click('#restart'); await settle(page); await state(page, 'start over');
await page.screenshot({ path: shots + 'd05-startover.png', fullPage: true });
await page.goBack(); await settle(page); await state(page, 'back after start over');
await page.goBack(); await settle(page); await state(page, 'back again');
console.log(logs.join('\n'));
await browser.close();
