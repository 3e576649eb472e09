// Drives the board explorer of a running `kalah serve` in headless Chromium
// (Debian's, through playwright-core), as a player would, and checks what
// it shows against the server's JSON API.
//
//   node explorer.mjs http://127.0.0.1:PORT [SCREENSHOT_DIR]
//
// Run by crates/kalah-cli/tests/serve.rs (the_explorer_plays_in_headless_chromium);
// tools/screenshots.sh gives a directory for the pictures in docs/.
// Exits 0 when every check held, 1 with the first that failed.

import { STEP, check, accessible, fitForFingers, recordMoves, run, server } from './support.mjs';

const [base, shots] = process.argv.slice(2);
if (!base) {
  console.error('usage: node explorer.mjs http://127.0.0.1:PORT [SCREENSHOT_DIR]');
  process.exit(2);
}
const { api, showsAnalysisOf } = server(base);

run('explorer.mjs', 3, async ({ browser, part, watched }) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Nothing but this server is asked for.
    const servers = [base, process.env.BACKGROUND_BASE].filter(Boolean);
    // The one error the page may log: the 400 of the impossible position given to the editor.
    const page = await watched(context, servers, (m, stage) => stage === 'the position editor' && /status of 400/.test(m.text()));

    // The start of Kalah(4,3) with empty capture, from an address that names it.
    part('the start of Kalah(4,3), from the address');
    const empty = { capture: 'empty' };
    await page.goto(base + '/?houses=4&seeds=3&capture=empty');
    const start = await showsAnalysisOf(page, '3,3,3,3,0,3,3,3,3,0 S', empty);
    check((await page.textContent('#status')).includes('South wins by 8'), 'the start of Kalah(4,3) is not said to be South wins by 8');
    check((await page.inputValue('#capture')) === 'empty', 'the capture rule of the address is not selected');

    // Two moves played by clicking their houses: the best, then the worst.
    part('two moves played by clicking');
    const first = start.moves[0];
    await accessible(page, 'a start');
    // The first Tab offers a way straight to the board, one more reaches a house.
    await page.keyboard.press('Tab');
    check((await page.evaluate(() => document.activeElement.className)) === 'skip', 'the first Tab does not offer to skip to the board');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    check(await page.evaluate(() => Boolean(document.activeElement.closest('#play'))), 'skipping to the board does not lead to it');
    await page.click(`#board [data-house="S${first.house}"]`);
    const second = await showsAnalysisOf(page, first.position, empty);
    // The last move is shown: the house played ringed, the cells it sowed lit.
    check((await page.getAttribute('#board .house.played', 'data-house')) === 'S' + first.house, 'the house played last is not marked');
    check((await page.$$('#board .sown')).length >= 2, 'the cells the last move sowed are not marked');
    const worst = second.moves[second.moves.length - 1];
    await page.click(`#board [data-house="${second.to_move}${worst.house}"]`);
    const third = await showsAnalysisOf(page, worst.position, empty);
    const plies = await recordMoves(page);
    check(plies.length === 3, `the game record shows ${plies}`);
    const dots = await page.$$eval('#chart .dot', (d) => d.length);
    check(dots === 3, `the chart shows ${dots} points after two moves`);
    if (worst.value !== second.moves[0].value) {
      check((await page.textContent('#feedback')).includes('gives away ' + (second.moves[0].value - worst.value)), 'a move that loses value is not pointed out');
      check((await page.$$('#chart .dot.turned')).length === 1, 'the chart does not mark the move where the game turned');
    }
    if (shots) await page.screenshot({ path: shots + '/explorer.png', fullPage: true });
    await accessible(page, 'after two moves');

    // The chart is a slider for the keyboard: the arrows step through the game.
    part('the chart, by keyboard');
    await page.focus('#chart');
    check(/after 2 moves/.test(await page.getAttribute('#chart', 'aria-valuetext')), 'the chart does not say where the game is');
    await page.keyboard.press('ArrowLeft');
    await showsAnalysisOf(page, first.position, empty);
    check(/after 1 moves? \(S\d\): South [+-]?\d/.test(await page.getAttribute('#chart', 'aria-valuetext')), 'the chart does not read out the value after the move');
    await page.keyboard.press('End');
    await showsAnalysisOf(page, third.position, empty);
    // A click (or a tap) near a point goes to that move.
    await page.click('#chart .target >> nth=1');
    await showsAnalysisOf(page, first.position, empty);
    await page.click('#chart .target >> nth=2');
    await showsAnalysisOf(page, third.position, empty);

    part('undo and redo');
    await page.click('#undo');
    await showsAnalysisOf(page, first.position, empty);
    await page.click('#redo');
    await showsAnalysisOf(page, third.position, empty);

    // The browser's Back and Forward step through the moves played.
    part('Back and Forward');
    await page.goBack();
    await showsAnalysisOf(page, first.position, empty);
    await page.goForward();
    await showsAnalysisOf(page, third.position, empty);
    check((await page.$$eval('#record .ply', (b) => b.length)) === 3, 'Back and Forward lost the game record');

    // A reload keeps the game: its record, the chart and the move that gave value away.
    part('the game record in the permalink');
    check(new URL(page.url()).searchParams.get('moves').split('.').length === 2, `the address holds no game record: ${page.url()}`);
    await page.reload();
    await showsAnalysisOf(page, third.position, empty);
    check((await recordMoves(page)).join() === plies.join(), 'a reload lost the game record');
    await page.waitForFunction(() => document.querySelectorAll('#chart .dot').length === 3, null, { timeout: STEP });
    if (worst.value !== second.moves[0].value) {
      await page.waitForFunction(() => document.querySelectorAll('#record .ply.lost').length === 1, null, { timeout: STEP });
      check(/\?/.test(await page.textContent('#record .ply.lost')), 'the move that gave value away has no mark');
    }

    // Another move after Undo is a variation, the game's line staying its
    // main line; a click on either goes to it (issue 64: the newest
    // variation became the main line).
    part('a variation');
    const other = second.moves.find((m) => m.house !== worst.house);
    if (other) {
      await page.click('#undo');
      await showsAnalysisOf(page, first.position, empty);
      await page.click(`#board [data-house="${second.to_move}${other.house}"]`);
      await showsAnalysisOf(page, other.position, empty);
      const kept = await recordMoves(page, '#record .variation .ply');
      check(kept.join() === second.to_move + other.house, `the move played after Undo is the variation ${other.house}: the variation shows ${kept}`);
      const main = await recordMoves(page, '#record > .together .ply');
      check(main.join() === [plies[1], plies[2]].join(), `the main line is no longer the game's: ${main}`);
      check((await page.getAttribute('#record .variation .ply', 'aria-current')) === 'step', 'the board\'s move is not marked in the record');
      await page.click(`#record > .together .ply[data-move="${second.to_move}${worst.house}"]`);
      await showsAnalysisOf(page, third.position, empty);
      // The variations are in the permalink: a reload keeps them, and one
      // of them a click brings back as before.
      const link = new URL(page.url()).searchParams.get('moves');
      check(link.includes('(' + second.to_move + other.house + ')'), `the address holds no variation: ${link}`);
      await page.reload();
      await showsAnalysisOf(page, third.position, empty);
      await page.waitForFunction(() => document.querySelectorAll('#record .variation .ply').length === 1, null, { timeout: STEP });
      const reloaded = await recordMoves(page, '#record .variation .ply');
      check(reloaded.join() === kept.join(), `a reload kept the variations as ${reloaded}, not ${kept}`);
      // Their moves are valued again too, as the game's are (what each kept or gave away).
      await page.waitForFunction(() => [...document.querySelectorAll('#record .variation .ply')].every((b) => b.title), null, { timeout: STEP });
      await page.click('#record .variation .ply');
      await showsAnalysisOf(page, other.position, empty);
      // The board in a variation: its address says which line, and a reload comes back to it.
      await page.reload();
      await showsAnalysisOf(page, other.position, empty);
      check((await page.getAttribute('#record .variation .ply', 'aria-current')) === 'step', 'a reload left the variation the board was in');
    }

    // The line of best play, stepped: the board shows the position after each step.
    part('the line of best play');
    if (third.pv.length) {
      await page.click('#pv-forward');
      const counts = await page.$$eval('#board [data-house] .count', (c) => c.length);
      check(counts === 8, 'stepping the line does not draw the board');
      check((await page.textContent('#status')).includes('step 1 of'), 'stepping the line is not said');
      // Steps under the board too, and a way back to the game.
      check(await page.isVisible('#line-steps'), 'no steps of the line under the board');
      await page.click('#line-leave');
      await page.waitForFunction(() => document.querySelector('#line-steps').hidden, null, { timeout: STEP });
      await page.click('#pv-forward');
      await page.click('#pv-back');
      // The line's turns are numbered on from the game's.
      const played = await page.$$eval('#record .turn', (t) => t.map((x) => parseInt(x.textContent)));
      const numbered = await page.$$eval('#pv .turn', (t) => t.map((x) => parseInt(x.textContent)));
      // (A line that goes on with the last mover's extra move numbers its first change of side.)
      check(numbered.length === 0 || numbered[0] === (played.at(-1) ?? 0) + 1, `the line's turns are numbered ${numbered} after the game's ${played}`);
    }

    // Start over: back to the game's first position, the moves forgotten.
    part('start over');
    const before = (await recordMoves(page)).length;
    const shown = new URLSearchParams(new URL(page.url()).search).get('position');
    await page.click('#restart');
    await showsAnalysisOf(page, '3,3,3,3,0,3,3,3,3,0 S', empty);
    check((await page.$$eval('#record .ply', (b) => b.length)) === 1, 'Start over keeps the moves played');
    await page.goBack();
    await showsAnalysisOf(page, shown, empty);
    // Back restores the game of the address, its record and variations too.
    await page.waitForFunction((n) => document.querySelectorAll('#record .ply').length === n, before, { timeout: STEP });

    // Other rules make another game, and so does New game: Back returns
    // to the game before, under its own rules and values.
    part('other rules and another game, then Back');
    await page.goto(base + '/?houses=4&seeds=3');
    await showsAnalysisOf(page, '3,3,3,3,0,3,3,3,3,0 S', {});
    await page.click('#board [data-house="S1"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('position') !== '3,3,3,3,0,3,3,3,3,0 S', null, { timeout: STEP });
    const played = new URL(page.url()).searchParams.get('position');
    await showsAnalysisOf(page, played, {});
    await page.selectOption('#capture', 'empty');
    await showsAnalysisOf(page, played, empty);
    await page.goBack();
    await showsAnalysisOf(page, played, {});
    check((await page.inputValue('#capture')) === 'standard', 'Back to a game under standard capture shows another rule');
    check(!new URL(page.url()).searchParams.has('capture'), `Back rewrote the address with another rule: ${page.url()}`);
    await page.fill('#houses', '3');
    await page.fill('#seeds', '3');
    await page.click('#new-game button[type="submit"]');
    await showsAnalysisOf(page, '3,3,3,0,3,3,3,0 S', {});
    await page.goBack();
    await showsAnalysisOf(page, played, {});
    check((await page.$$eval('#record .ply', (b) => b.length)) === 2, 'Back after New game lost the game before');
    // A record given with its position in the side form, and one with no start.
    await page.goto(base + '/?' + new URLSearchParams({ position: 'S:3-0-0-5:2 N:4-4-3-3:0 N', start: '3,3,3,3,0,3,3,3,3,0 S', moves: 'S2.S3' }));
    await showsAnalysisOf(page, '3,0,0,5,2,4,4,3,3,0 N', {});
    check((await page.$$eval('#record .ply', (b) => b.length)) === 3, 'a record whose position is in the side form was not restored');
    await page.goto(base + '/?' + new URLSearchParams({ houses: '4', seeds: '3', moves: 'S2.S3' }));
    await page.waitForFunction(() => /no start=/.test(document.querySelector('#feedback').textContent), null, { timeout: STEP });

    // A capture: the cell the seed was sown into is marked, not the house emptied.
    part('the marks of a capture');
    await page.goto(base + '/?position=' + encodeURIComponent('1,0,3,3,0,3,3,3,3,0 S') + '&capture=empty');
    await page.waitForSelector('#board .house.legal', { timeout: STEP });
    await page.click('#board .house[data-house="S1"]');
    await page.waitForFunction(() => document.querySelector('#board .house.played'), null, { timeout: STEP });
    const marked = await page.$$eval('#board .sown', (g) => g.map((x) => x.dataset.house || x.dataset.store));
    check(marked.join() === 'S2', `a capture from S1 marks ${marked} as sown (S2 only)`);

    // The editor: an impossible position is explained, a good one analysed.
    part('the position editor');
    await page.click('#edit');
    await page.fill('[data-cell="S1"]', '300');
    await page.click('#editor button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#editor-error').textContent.length > 0, null, { timeout: STEP });
    const why = await page.textContent('#editor-error');
    check(/300|255|seeds/.test(why), `an impossible position is explained as: ${why}`);
    console.log('explorer.mjs: the editor says: ' + why);
    // One the server refuses (more seeds than a board of four houses holds) is explained in its words.
    for (const cell of ['S1', 'S2', 'S3', 'S4', 'N1', 'N2', 'N3', 'N4']) await page.fill(`[data-cell="${cell}"]`, '40');
    await page.click('#editor button[type="submit"]');
    await page.waitForFunction(() => /Not a position/.test(document.querySelector('#editor-error').textContent), null, { timeout: STEP });
    console.log('explorer.mjs: the server says: ' + (await page.textContent('#editor-error')));
    // A cell that is not a count is named, before any request.
    await page.fill('[data-cell="S1"]', '-1');
    await page.click('#editor button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#editor-error').textContent.startsWith('S1:'), null, { timeout: STEP });
    const cells = { S1: '1', S2: '0', S3: '2', S4: '0', 'S store': '5', N1: '2', N2: '1', N3: '0', N4: '1', 'N store': '4' };
    for (const [cell, value] of Object.entries(cells)) await page.fill(`[data-cell="${cell}"]`, value);
    await page.selectOption('#editor-side', 'N');
    await page.click('#editor button[type="submit"]');
    const edited = '1,0,2,0,5,2,1,0,1,4 N';
    await showsAnalysisOf(page, edited, empty);
    check(await page.isHidden('#editor'), 'the editor stays open after a good position');

    // The permalink: a reload restores position and rules.
    part('the permalink');
    await page.reload();
    await showsAnalysisOf(page, edited, empty);
    check((await page.inputValue('#capture')) === 'empty', 'a reload loses the capture rule');
    // A record that does not lead to the position is said, and the position opened alone.
    await page.goto(base + '/?' + new URLSearchParams({ position: third.position, capture: 'empty', start: '3,3,3,3,0,3,3,3,3,0 S', moves: 'N1.S2' }));
    await showsAnalysisOf(page, third.position, empty);
    check((await page.textContent('#feedback')).includes('not restored'), 'a wrong game record in the address is not said');
    check((await page.inputValue('#seeds')) === '3', 'the setup does not show the seeds of the game the record was of');
    // A record that does not read (a variation not closed) is said too.
    await page.goto(base + '/?' + new URLSearchParams({ position: third.position, capture: 'empty', start: '3,3,3,3,0,3,3,3,3,0 S', moves: 'S2(S3.N1' }));
    await showsAnalysisOf(page, third.position, empty);
    await page.waitForFunction(() => /not closed/.test(document.body.textContent), null, { timeout: STEP });

    // Against the perfect player: values hidden until a hint, and it answers a move.
    part('a game against the perfect player');
    await page.goto(base + '/?houses=3&seeds=2&play=S');
    await page.waitForSelector('#board .house.legal', { timeout: STEP });
    check((await page.$$('#board .badge')).length === 0, 'values are shown in play mode before a hint');
    check((await page.$$('#chart .dot')).length === 0, 'the chart plots values in play mode before a hint');
    check((await page.textContent('#chart')).includes('Values hidden'), 'the chart does not say the values are hidden');
    await accessible(page, 'a game against the perfect player');
    await page.click('#hint');
    await page.waitForSelector('#board .badge', { timeout: STEP });
    const game = await api('/api/v1/start?houses=3&seeds=2');
    let turns = 0;
    for (let m = game.moves[0]; turns < 10; turns++) {
      // Play South's best move; the perfect player answers until South is to move again, or the game ends.
      await page.click(`#board [data-house="S${m.house}"]`);
      await page.waitForFunction(() => document.querySelector('#board .house.legal') || /Game over/.test(document.querySelector('#status').textContent), null, { timeout: STEP });
      if (/Game over/.test(await page.textContent('#status'))) break;
      // The keyboard stays on the board for the next move; the player's
      // note stays beside the perfect player's; the record marks nothing.
      const focused = await page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('#board .house.legal')));
      check(focused, 'after a move the keyboard left the board');
      const note = await page.textContent('#feedback');
      const plies = await recordMoves(page);
      if (plies[plies.length - 1].startsWith('N')) check(/S\d/.test(note) && note.includes('The perfect player plays N'), `the notes on the two moves: ${note}`);
      check((await page.$$('#record .ply.lost')).length === 0, 'the record marks moves while values are hidden');
      if (shots && turns === 1) await page.screenshot({ path: shots + '/explorer-play.png', fullPage: true });
      const now = await api('/api/v1/analysis?' + new URLSearchParams({ position: new URLSearchParams(new URL(page.url()).search).get('position') }));
      check(now.to_move === 'S', 'the perfect player left North to move');
      m = now.moves[0];
    }
    const over = await page.textContent('#status');
    check(over.includes('Game over'), `the game against the perfect player did not end: ${over}`);
    check(over.includes(game.verdict.replace(/\.$/, '')), `best play against the perfect player should end as the start's value (${game.verdict}): ${over}`);
    check((await page.$$('#chart .dot')).length > 1, 'the chart stays empty once the game is over');

    // A rule the address gets wrong is said, before any search, and the
    // game it could give is on the board with the menu showing the rule used.
    part('a wrong rule in the address');
    await page.goto(base + '/?houses=4&seeds=3&capture=never');
    await page.waitForSelector('#board .house.legal', { timeout: STEP });
    await page.waitForFunction(() => document.querySelector('#feedback').textContent.includes('capture=never'), null, { timeout: STEP });
    check((await page.inputValue('#capture')) === 'standard', 'the capture menu does not show the rule used');
    check((await page.$$('#board .house')).length === 8, 'the game of the address is not on the board');
    check((await page.textContent('#board [data-sowing]')).includes('counter-clockwise'), 'the board does not show the sowing direction');

    // A long search is stopped with Escape, and the board says so at once.
    part('a search stopped with Escape');
    await page.goto(base + '/?houses=6&seeds=6&sowing=cw&book=false');
    await page.waitForSelector('#status.loading', { timeout: STEP });
    await page.waitForTimeout(300);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => /Stopped/.test(document.querySelector('#status').textContent), null, { timeout: 3000 });
    check(await page.isVisible('#again'), 'no way to analyse again after Escape');
    // Analyse again: the new game is asked for anew, and its board shows clockwise sowing.
    await page.click('#again');
    await page.waitForSelector('#status.loading', { timeout: STEP });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => /Stopped/.test(document.querySelector('#status').textContent), null, { timeout: 3000 });

    // A phone-sized screen: the board fits the width, nothing scrolls sideways.
    part('a phone-sized screen');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const small = await watched(phone, servers);
    await small.goto(base + '/?position=' + encodeURIComponent('3,0,4,4,1,3,3,3,3,0 S') + '&capture=empty');
    await small.waitForSelector('#board .badge', { timeout: STEP });
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 0, `the phone-sized page scrolls ${overflow} px sideways`);
    const box = await small.locator('#board').boundingBox();
    check(box.width <= 390 && box.width > 300, `the board is ${box.width} px wide on a 390 px screen`);
    check(await small.$eval('#board', (b) => b.classList.contains('upright')), 'the board does not stand upright on a phone');
    await fitForFingers(small);
    await accessible(small, 'a phone');
    await small.tap('#board .house[data-house="S3"]');
    await small.waitForFunction(() => new URLSearchParams(location.search).get('position') !== '3,0,4,4,1,3,3,3,3,0 S', null, { timeout: STEP });
    // The answer for the new position in, before the picture is taken.
    await small.waitForFunction(() => document.querySelector('#board .badge') && !document.querySelector('#status.loading'), null, { timeout: STEP });
    check((await small.inputValue('#houses')) === '4', 'the setup does not show the board size of the position opened');
    if (shots) await small.screenshot({ path: shots + '/explorer-phone.png', fullPage: true });

    // A server that answers with bounds only at first (BACKGROUND_BASE: a
    // two-hundredth of a second a search): the page shows the bounds closing
    // in the background, then the exact answer.
    const slow = process.env.BACKGROUND_BASE;
    if (slow) {
      part('bounds closing in the background');
      await page.goto(slow + '/?houses=4&seeds=5');
      await page.waitForFunction(() => /in the background/.test(document.querySelector('#background-text').textContent), null, { timeout: STEP });
      check(await page.isVisible('#background-stop'), 'no way to stop the background search');
      await page.waitForFunction(() => document.querySelector('#background').hidden && /wins|draw/.test(document.querySelector('#status').textContent), null, { timeout: 60_000 });
      const exact = await (await fetch(slow + '/api/v1/start?houses=4&seeds=5&time_limit=0.001')).json();
      check(exact.exact, `the server has no exact answer after its background search: ${JSON.stringify(exact)}`);
      check((await page.textContent('#status')).includes(exact.verdict.replace(/\.$/, '')), `the page does not show the exact answer (${exact.verdict})`);
      await showsAnalysisOf(page, exact.position, {});
      if (shots) {
        // The picture: a longer search (Kalah(5,5); the slot is free again), once its bounds have begun to close.
        const picture = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await picture.goto(slow + '/?houses=5&seeds=5');
        await picture.waitForFunction(() => /between|by \d+ to \d+|up to/.test(document.querySelector('#status').textContent) && /in the background/.test(document.querySelector('#background-text').textContent), null, { timeout: STEP });
        await picture.screenshot({ path: shots + '/explorer-background.png' });
        await picture.close();
      }
    }

    // The rules page, linked from the explorer's header.
    part('the rules page');
    await small.click('header a[href="/rules"]');
    await small.waitForSelector('h1', { timeout: STEP });
    check((await small.textContent('h1')).includes('rules'), 'the rules page has no title');
    check((await small.textContent('main')).includes('capture'), 'the rules page does not explain captures');
    await fitForFingers(small);
    await accessible(small, 'the rules page');
});
