// The board explorer of `kalah serve`: a page over the JSON API (docs/api.md).
//
// The page decides nothing about the game: the server gives every legal
// move with its value and the position it leads to, and a line of best
// play with the position after each step. The page draws them, keeps the
// game played (undo, redo, a chart of the value), and writes the position
// and rules into its address so that a reload or a shared link restores
// them.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const RULES = ['capture', 'end', 'leftovers', 'sowing', 'relay'];
const DEFAULT_RULES = { capture: 'standard', end: 'instant', leftovers: 'owner', sowing: 'ccw', relay: 'off' };
const NAMES = { S: 'South', N: 'North' };
const other = (side) => (side === 'S' ? 'N' : 'S');

const state = {
  rules: { ...DEFAULT_RULES },
  mode: 'explore', // 'explore', or the side the player plays against the perfect player
  history: [], // each {position, move}: move is {side, house, value, best} (values for its mover), null for the first
  cursor: 0,
  hint: false, // values shown in play mode for this position
  preview: 0, // steps along the line of best play shown on the board (0: the position itself)
  error: null, // what the last request said was wrong
  loading: null, // {key, started}
  abort: null, // stops the request under way (Escape)
  pushAddress: false, // the next address written is a new entry of the browser's history (a move)
  keepFocus: false, // a move was made from the board: the keyboard stays there
  lastNote: '', // the note on the player's own last move, which the perfect player's answer is added to
  animated: null, // the entry whose last move the board has shown sown (it is shown so once)
  filling: null, // the analysis under way of a position of a restored record
  closing: null, // {position, lower, upper}: bounds the server's background search has proven since the answer
};
const answers = new Map(); // "position|rules" -> the API's answer
let ticker = null;
let computerTimer = null;

const $ = (id) => document.getElementById(id);

// ---- Positions ----

/** A position in ring form ("3,3,3,3,0,3,3,3,3,0 S") as counts. */
function parseRing(ring) {
  const [counts, side] = ring.trim().split(/\s+/);
  const n = counts.split(',').map(Number);
  const h = (n.length - 2) / 2;
  return { h, south: n.slice(0, h), southStore: n[h], north: n.slice(h + 1, 2 * h + 1), northStore: n[2 * h + 1], side };
}

function ringOf(p) {
  return [...p.south, p.southStore, ...p.north, p.northStore].join(',') + ' ' + p.side;
}

const rulesKey = (rules) => RULES.map((r) => rules[r]).join(',');
const keyOf = (position, rules) => position + '|' + rulesKey(rules);
const current = () => state.history[state.cursor];
const answerOf = (entry) => entry && answers.get(keyOf(entry.position, state.rules));

function signed(v) {
  return v > 0 ? '+' + v : String(v);
}

/** A move's value or its bounds, for the side that makes it. */
function valueText(m) {
  if (m.value !== null && m.value !== undefined) return signed(m.value);
  return signed(m.lower) + '..' + signed(m.upper);
}

function verdictFor(side, v) {
  if (v === 0) return 'draw';
  return (v > 0 ? NAMES[side] : NAMES[other(side)]) + ' wins by ' + Math.abs(v);
}

/** What bounds `lower..upper` on `side`'s value prove, in words. */
function boundsInWords(side, lower, upper) {
  const me = NAMES[side];
  if (lower > 0) return `${me} wins, by ${lower} to ${upper} (not yet proven exactly)`;
  if (upper < 0) return `${me} loses, by ${-upper} to ${-lower} (not yet proven exactly)`;
  if (lower === 0) return `${me} draws or wins by up to ${upper} (not yet proven exactly)`;
  if (upper === 0) return `${me} draws or loses by up to ${-lower} (not yet proven exactly)`;
  return `not yet proven: ${me} ends between losing by ${-lower} and winning by ${upper}`;
}

/** A fill for a value: green for a win, red for a loss, darker the larger the margin. */
function tone(m) {
  const exact = m.value !== null && m.value !== undefined;
  const v = exact ? m.value : (m.lower + m.upper) / 2;
  const depth = Math.min(Math.abs(v), 12);
  // White text on every fill at a contrast of at least 4.5:1.
  if (!exact && m.lower < 0 && m.upper > 0) return 'hsl(220 8% 44%)';
  if (v > 0) return `hsl(140 55% ${32 - depth * 1}%)`;
  if (v < 0) return `hsl(2 68% ${50 - depth * 1.5}%)`;
  return 'hsl(220 10% 44%)';
}

function outcomeClass(m) {
  const lo = m.value ?? m.lower;
  const hi = m.value ?? m.upper;
  if (lo > 0) return 'win';
  if (hi < 0) return 'loss';
  if (lo === 0 && hi === 0) return 'draw';
  return 'unknown';
}

// ---- Talking to the server ----

/** `params` and the rules that are not the defaults, as a query string. */
function query(params) {
  const q = new URLSearchParams(params);
  for (const r of RULES) if (state.rules[r] !== DEFAULT_RULES[r]) q.set(r, state.rules[r]);
  return q.toString();
}

/** Fetches an API answer; retries while the server is busy (503). `signal` stops it (Escape). */
async function api(path, params, signal) {
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      response = await fetch(path + '?' + query(params), { signal });
    } catch (e) {
      if (e.name === 'AbortError') throw new Error(STOPPED);
      throw new Error('the server cannot be reached (' + e.message + ')');
    }
    const body = await response.json().catch(() => ({ error: 'the server sent no JSON (status ' + response.status + ')' }));
    if (response.status === 503 && attempt < 20) {
      setStatus('Every search slot of the server is busy: trying again…');
      const wait = Number(response.headers.get('Retry-After')) || 1;
      await new Promise((done) => setTimeout(done, wait * 1000));
      continue;
    }
    if (!response.ok) throw new Error(body.error || 'status ' + response.status);
    return body;
  }
}

/** What the status says of a request stopped with Escape. */
const STOPPED = 'Stopped (Escape): no values for this position. Analyse again, or play on.';

/** Stops the request under way, if any (Escape): the server stops its search. */
function stop() {
  if (!state.loading || !state.abort) return;
  state.abort.abort();
}

/** Asks for the analysis of the current position, unless it is known. */
function analyseCurrent() {
  const entry = current();
  const key = keyOf(entry.position, state.rules);
  if (answers.has(key) || (state.loading && state.loading.key === key)) return;
  state.loading = { key, started: performance.now() };
  state.error = null;
  state.abort = new AbortController();
  const rules = { ...state.rules };
  api('/api/v1/analysis', { position: entry.position }, state.abort.signal)
    .then((answer) => {
      answers.set(keyOf(answer.position, rules), answer);
    })
    .catch((e) => {
      if (state.loading && state.loading.key === key) state.error = e.message;
    })
    .finally(() => {
      if (state.loading && state.loading.key === key) state.loading = null;
      render();
    });
}

/** Counts the games asked for: a newer one always wins over an older answer still on its way. */
let gamesAsked = 0;

/** Starts Kalah(houses, seeds); `another`: a game the player asked for, which Back leaves. */
async function newGame(houses, seeds, another = false) {
  const asked = ++gamesAsked;
  state.loading = { key: 'start', started: performance.now() };
  state.error = null;
  state.abort = new AbortController();
  render();
  try {
    const answer = await api('/api/v1/start', { houses, seeds }, state.abort.signal);
    if (asked !== gamesAsked) return;
    answers.set(keyOf(answer.position, state.rules), answer);
    startFrom(answer.position);
    // Another game: Back returns to the one before.
    state.pushAddress = another;
  } catch (e) {
    if (asked === gamesAsked) state.error = e.message;
  } finally {
    if (asked === gamesAsked) {
      state.loading = null;
      render();
    }
  }
}

/**
 * With no game in the address: Kalah(6,4), the usual game, if the server
 * has a database file for it, or an opening book that holds its start
 * (asked with a time limit too short for a search), so that its opening
 * moves are exact at once; otherwise Kalah(4,4), with a word on how to
 * make Kalah(6,4) quick.
 */
async function firstGame() {
  let files = [];
  try {
    files = (await api('/api/v1/databases', {})).databases;
  } catch {
    // No list: the smaller game, which needs none.
  }
  const rules = (f) => RULES.every((r) => f.rules[r] === state.rules[r]);
  const six = files.some((f) => f.houses === 6 && f.max_seeds >= 20 && rules(f));
  let booked = false;
  if (!six) {
    try {
      booked = (await api('/api/v1/start', { houses: 6, seeds: 4, time_limit: 0.05 })).source === 'book';
    } catch {
      // No answer: the smaller game.
    }
    const make = '"kalah db build --houses 6 --max-seeds 20" makes one (216 MiB; 8 s on two cores).';
    $('tip').hidden = false;
    $('tip').textContent = booked
      ? 'Kalah(6,4)\'s first moves come exact from the opening book; beyond it this server has no endgame database file ' +
        'for the game, so later positions are answered by bounds at first. ' + make
      : 'Kalah(4,4) to start with: this server has no endgame database file for Kalah(6,4), the usual game ' +
        '(Houses 6, Seeds 4), so its positions would long be answered by bounds only. ' + make;
  }
  $('houses').value = six || booked ? 6 : 4;
  $('seeds').value = 4;
  await newGame($('houses').value, $('seeds').value);
}

/** The setup's board size for a game from `position`: its houses, and its seeds if it is a start. */
function showSize(position) {
  const p = parseRing(position);
  $('houses').value = p.h;
  const houses = [...p.south, ...p.north];
  if (p.side === 'S' && p.southStore === 0 && p.northStore === 0 && houses.every((n) => n === houses[0]) && houses[0] > 0) $('seeds').value = houses[0];
}

function startFrom(position) {
  state.lastNote = '';
  showSize(position);
  // The word on making Kalah(6,4) quick is of no use in another game.
  if (parseRing(position).h !== 6) $('tip').hidden = true;
  state.history = [{ position, move: null }];
  state.cursor = 0;
  moved();
}

/** What a new position on the board leaves behind: the line shown, the hint, the last error and word. */
function moved() {
  state.preview = 0;
  state.hint = false;
  state.error = null;
  $('feedback').textContent = '';
}

/** Opens a position given as text (from the address): analysed first, so that a bad one is explained. */
async function openPosition(text) {
  state.loading = { key: 'open', started: performance.now() };
  try {
    const answer = await api('/api/v1/analysis', { position: text });
    answers.set(keyOf(answer.position, state.rules), answer);
    startFrom(answer.position);
  } catch (e) {
    state.loading = null;
    await newGame($('houses').value, $('seeds').value);
    state.error = 'The position in the address was not opened: ' + e.message;
  } finally {
    state.loading = null;
    render();
  }
}

/**
 * Replays the game of a permalink: its first position, then each move,
 * the position after it read from a quick analysis (a twentieth of a
 * second: only the positions are wanted; the values come as the record
 * is analysed afterwards), and each variation likewise from the position
 * it leaves. If the moves do not lead to `position`, the position alone
 * is opened, and the page says why.
 */
async function restoreGame(game, position) {
  state.loading = { key: 'restore', started: performance.now() };
  render();
  let problem = null;
  try {
    const quick = async (position) => {
      const answer = await api('/api/v1/analysis', { position, time_limit: 0.05 });
      if (answer.exact) answers.set(keyOf(answer.position, state.rules), answer);
      return answer;
    };
    // The entries of the moves `nodes` from the position `answer` analysed,
    // each with its variations.
    const replay = async (answer, nodes) => {
      const entries = [];
      for (const [j, node] of nodes.entries()) {
        const side = node.name[0];
        const house = Number(node.name.slice(1));
        const m = answer.to_move === side && answer.moves.find((x) => x.house === house);
        if (!m) throw new Error(`${node.name} is not a move of ${answer.position}`);
        const entry = { position: m.position, move: { side, house, value: null, best: null, unknown: true } };
        const next = j + 1 < nodes.length || node.variations.length ? await quick(m.position) : null;
        if (node.variations.length) entry.variations = [];
        for (const v of node.variations) entry.variations.push(await replay(next, v));
        entries.push(entry);
        answer = next;
      }
      return entries;
    };
    const first = await quick(game.start);
    const start = { position: first.position, move: null };
    if (game.line.lead.length) start.variations = [];
    for (const v of game.line.lead) start.variations.push(await replay(first, v));
    const history = [start, ...(await replay(first, game.line.moves))];
    const at = Math.max(0, Math.min(game.at, history.length - 1));
    // The position of the address, if it gives one, as the server writes it (it may be given in the side form).
    if (position && history[at].position !== position && history[at].position !== (await quick(position)).position) {
      throw new Error(`the moves lead to ${history[at].position}, not to the position of the address`);
    }
    state.history = history;
    state.cursor = at;
    showSize(history[0].position);
    moved();
  } catch (e) {
    problem = 'The game record in the address was not restored: ' + e.message + '.';
  } finally {
    state.loading = null;
  }
  if (problem) {
    // The setup shows the game the record was of, where its start is a ring (New game then starts it).
    if (/^[0-9,]+ [SN]$/.test(game.start.trim())) showSize(game.start.trim());
    if (position) await openPosition(position);
    else await newGame($('houses').value, $('seeds').value);
    $('feedback').textContent = problem;
  } else {
    render();
  }
}

/**
 * The moves of a game as the address writes them: the line played, moves
 * such as S3 apart by dots, each followed by its variations in
 * parentheses (other moves from the position it led to), those of the
 * first position before them all: `(S1.N2)S3(S2).N1`.
 */
function movesText(history) {
  const variations = (entry) => (entry.variations || []).map((tail) => '(' + tailText(tail) + ')').join('');
  const tailText = (tail) => tail.map((e) => e.move.side + e.move.house + variations(e)).join('.');
  return variations(history[0]) + tailText(history.slice(1));
}

/**
 * Reads `movesText`'s form: `{ lead, moves }`, `lead` the variations of
 * the first position, `moves` the line played, each move `{ name,
 * variations }`, a variation a list of such moves. Throws, naming where,
 * on anything else.
 */
function parseMoves(text) {
  let i = 0;
  const fail = (what) => {
    throw new Error(`${what} at character ${i + 1}`);
  };
  const groups = () => {
    const out = [];
    const seen = new Set();
    while (text[i] === '(') {
      const from = i;
      i += 1;
      const variation = line();
      if (text[i] !== ')') fail('a variation not closed');
      i += 1;
      // The same variation twice is one.
      const written = text.slice(from, i);
      if (!seen.has(written)) out.push(variation);
      seen.add(written);
    }
    return out;
  };
  const line = () => {
    const moves = [];
    while (i < text.length && text[i] !== ')') {
      if (moves.length) {
        if (text[i] !== '.') fail('no dot between two moves');
        i += 1;
      }
      const name = text.slice(i, i + 2);
      if (!/^[SN][1-8]$/.test(name)) fail(`"${name}" is not a move (a side, S or N, and a house, 1 to 8)`);
      i += 2;
      moves.push({ name, variations: groups() });
    }
    if (!moves.length) fail('an empty line');
    return moves;
  };
  const lead = groups();
  const moves = i < text.length ? line() : [];
  if (i < text.length) fail('a parenthesis not opened');
  return { lead, moves };
}

/**
 * A game restored from a permalink knows its positions but not their
 * values: while nothing else is asked, its positions are analysed one at a
 * time, the record's marks and the chart filling in as they come.
 */
function fillRecord() {
  if (state.loading || state.filling) return;
  const pair = movePairs().find(([before, after]) => after.move.unknown && !answerOf(before));
  if (!pair) return;
  const rules = { ...state.rules };
  state.filling = api('/api/v1/analysis', { position: pair[0].position })
    .then((answer) => answers.set(keyOf(answer.position, rules), answer))
    .catch(() => {
      pair[1].move.unknown = false; // no values for this move: not asked again
    })
    .finally(() => {
      state.filling = null;
      render();
    });
}

/**
 * Every move of the game, then of its variations, with the entry it was
 * played from: `[before, after]` pairs, the game's line first.
 */
function movePairs() {
  const line = state.history.slice(1).map((entry, i) => [state.history[i], entry]);
  const branches = [];
  const walk = (entry) => {
    for (const tail of entry.variations || []) {
      tail.forEach((after, j) => {
        branches.push([j ? tail[j - 1] : entry, after]);
        walk(after);
      });
    }
  };
  state.history.forEach(walk);
  return line.concat(branches);
}

/** The values of moves whose position before was analysed after they were played (a restored record, its variations too). */
function valuesOfRestoredMoves() {
  movePairs().forEach(([from, entry]) => {
    if (!entry.move.unknown) return;
    const before = answerOf(from);
    if (!before) return;
    const m = before.moves.find((x) => x.house === entry.move.house);
    const best = before.moves[0];
    Object.assign(entry.move, { value: m ? m.value : null, lower: m && m.lower, upper: m && m.upper, best: best.value, bestHouse: best.house, unknown: false });
  });
}

// ---- Playing ----

function humanToMove(position) {
  return state.mode === 'explore' || parseRing(position).side === state.mode;
}

/**
 * Against the perfect player, values are hidden until the game ends or
 * Hint is pressed: on the board, in the chart, the record's marks and the
 * notes on moves alike.
 */
function valuesHidden() {
  if (state.mode === 'explore' || state.hint) return false;
  const a = answerOf(current());
  return !(a && !a.moves.length);
}

/** Plays `house` of the side to move; its position comes from the analysis. */
function play(house) {
  // A move made from the board (a click, or Enter on a house) keeps the
  // keyboard on the board for the next move.
  if ($('board').contains(document.activeElement)) state.keepFocus = true;
  const entry = current();
  const answer = answerOf(entry);
  if (!answer) return;
  const hinted = state.hint;
  const m = answer.moves.find((x) => x.house === house);
  if (!m) return;
  const side = answer.to_move;
  const best = answer.moves[0];
  const move = { side, house, value: m.value, lower: m.lower, upper: m.upper, best: best.value, bestHouse: best.house };
  const next = state.history[state.cursor + 1];
  const known = (entry.variations || []).findIndex((tail) => tail[0].position === m.position && tail[0].move.house === house);
  if (next && next.position === m.position && next.move.house === house) {
    state.cursor += 1; // the move redone: the rest of the game is kept
  } else if (known >= 0) {
    switchLine(state.cursor, known); // a variation played again: it becomes the game's line
    state.cursor += 1;
  } else {
    branch();
    state.history.push({ position: m.position, move });
    state.cursor += 1;
  }
  moved();
  say(move, hinted);
  // Against the perfect player, Back steps over its answer to the player's own move.
  state.pushAddress = state.mode === 'explore' || move.side === state.mode;
  render();
}

/** What a move gave away (its mover's best value less its own), null if either is not proven. */
function lostBy(move) {
  return move && move.value !== null && move.best !== null ? move.best - move.value : null;
}

/** Tells the player what a move did to the value (against the perfect player, only after a hint: `hinted`). */
function say(move, hinted) {
  const lost = lostBy(move);
  const name = move.side + move.house;
  const computers = state.mode !== 'explore' && move.side !== state.mode;
  const hidden = state.mode !== 'explore' && !hinted;
  let text;
  if (hidden) text = (computers ? 'The perfect player plays ' : 'You play ') + name + '.';
  else if (lost === null) text = name + ' played (values not proven in time).';
  else if (lost === 0) text = name + ' keeps the value: ' + verdictFor(move.side, move.value) + '.';
  else text = name + ' gives away ' + lost + ': ' + move.side + move.bestHouse + ' was worth ' + signed(move.best) + ', ' + name + ' is worth ' + signed(move.value) + '.';
  // The perfect player's answer (one move or more) is added to the note on
  // the player's move, not put in its place.
  const note = computers && state.lastNote ? state.lastNote + ' ' + text : text;
  state.lastNote = note;
  $('feedback').textContent = note;
  $('feedback').className = lost > 0 && !hidden ? 'blunder' : '';
}

/** In play mode, the perfect player moves once its analysis is in. */
function maybeComputerMoves() {
  clearTimeout(computerTimer);
  if (state.mode === 'explore' || state.preview) return;
  const entry = current();
  const answer = answerOf(entry);
  if (!answer || !answer.moves.length || humanToMove(entry.position)) return;
  computerTimer = setTimeout(() => {
    if (current() === entry) play(answer.moves[0].house);
  }, 600);
}

function undo() {
  if (state.cursor === 0) return;
  state.lastNote = '';
  state.cursor -= 1;
  // Against the perfect player, back to a position of the player's.
  while (state.mode !== 'explore' && state.cursor > 0 && !humanToMove(current().position)) state.cursor -= 1;
  moved();
  render();
}

function redo() {
  if (state.cursor + 1 >= state.history.length) return;
  state.lastNote = '';
  state.cursor += 1;
  while (state.mode !== 'explore' && state.cursor + 1 < state.history.length && !humanToMove(current().position)) state.cursor += 1;
  moved();
  render();
}

function goTo(index) {
  state.lastNote = '';
  state.cursor = Math.max(0, Math.min(index, state.history.length - 1));
  moved();
  render();
}

// ---- Drawing the board ----

const P = 84; // house pitch
const R = 31; // house radius
const STORE_W = 62;
const MARGIN = 12;
/** A narrow screen draws the board upright: North's store at the top, houses in two columns, tappable. */
const UPRIGHT = window.matchMedia('(max-width: 560px)');

/**
 * Where everything of a board of `h` houses a side goes: across a wide
 * screen (North's store on the left, South's row below), upright on a
 * narrow one (the same picture turned a quarter, so that the sowing goes
 * round the same way). A house: its centre, its label and the centre of
 * its value badge; a store: its box, its count and its label.
 */
function layout(h, upright) {
  if (!upright) {
    const width = 2 * MARGIN + 2 * STORE_W + 24 + h * P;
    const column = (i) => MARGIN + STORE_W + 12 + P / 2 + i * P;
    return {
      width,
      height: 276,
      r: R,
      store: (side) => {
        const x = side === 'N' ? MARGIN : width - MARGIN - STORE_W;
        return { x, y: 50, w: STORE_W, h: 176, count: [x + STORE_W / 2, 148], label: [x + STORE_W / 2, side === 'N' ? 40 : 250] };
      },
      house: (side, house) => {
        const cx = column(side === 'S' ? house - 1 : h - house);
        return side === 'S' ? { cx, cy: 184, label: [cx, 266], badge: [cx, 222] } : { cx, cy: 92, label: [cx, 16], badge: [cx, 40] };
      },
      direction: { x: width / 2, y: 143, turn: 0 },
    };
  }
  const width = 360;
  const pitch = 72;
  const top = 80;
  const row = (i) => top + pitch / 2 + i * pitch;
  const bottom = top + h * pitch + 8;
  return {
    width,
    height: bottom + 66,
    r: 29,
    store: (side) => {
      const y = side === 'N' ? 10 : bottom;
      return { x: 80, y, w: 200, h: 56, count: [180, y + 36], label: [side === 'N' ? 320 : 40, y + 33] };
    },
    house: (side, house) => {
      const [cx, cy, outer] = side === 'S' ? [130, row(house - 1), 40] : [230, row(h - house), 320];
      return { cx, cy, label: [outer, cy - 10], badge: [outer, cy + 12] };
    },
    direction: { x: 180, y: top + (h * pitch) / 2, turn: h >= 3 ? -90 : 0 },
  };
}

function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A cell's place in the ring form: South's houses, South's store, North's houses, North's store. */
function ringIndex(h, side, house) {
  const base = side === 'S' ? 0 : h + 1;
  return house === 'store' ? base + h : base + house - 1;
}

/**
 * What the last move did, for the board to show: the house played, and
 * each cell its seeds were sown into with its place in the sowing (the
 * order the seeds went in). The sowing is followed from the house played
 * (the opponent's store skipped); with relay sowing, whose laps the
 * position does not tell, the cells whose count changed stand for it.
 */
function lastMove(entry, index) {
  if (!entry || !entry.move || index === 0) return null;
  const before = parseRing(state.history[index - 1].position);
  const after = parseRing(entry.position);
  const cells = (p) => [...p.south, p.southStore, ...p.north, p.northStore];
  const [a, b] = [cells(before), cells(after)];
  if (a.length !== b.length) return null;
  const n = a.length;
  const h = before.h;
  const from = ringIndex(h, entry.move.side, entry.move.house);
  const step = state.rules.sowing === 'cw' ? -1 : 1;
  const sown = new Map();
  if (state.rules.relay === 'on') {
    a.forEach((count, k) => {
      if (count !== b[k]) sown.set(k, (((k - from) * step) % n + n) % n);
    });
  } else {
    const skip = entry.move.side === 'S' ? ringIndex(h, 'N', 'store') : ringIndex(h, 'S', 'store');
    let at = from;
    for (let seed = 0; seed < a[from]; ) {
      at = (((at + step) % n) + n) % n;
      if (at === skip) continue;
      seed += 1;
      if (!sown.has(at)) sown.set(at, seed);
    }
  }
  return { played: from, changed: sown };
}

function drawBoard(position, answer, interactive, last, animate) {
  const p = parseRing(position);
  const svg = $('board');
  const at = layout(p.h, UPRIGHT.matches);
  svg.setAttribute('viewBox', `0 0 ${at.width} ${at.height}`);
  svg.classList.toggle('upright', UPRIGHT.matches);
  svg.replaceChildren();
  svg.append(el('rect', { x: 2, y: 2, width: at.width - 4, height: at.height - 4, rx: 26, class: 'wood' }));
  const moves = new Map((answer ? answer.moves : []).map((m) => [m.house, m]));
  const showValues = answer && (state.mode === 'explore' || state.hint);
  // The last move: the house played ringed, each cell it changed lit in
  // the order the seeds went in (at once under reduced motion).
  const mark = (g, k) => {
    if (!last) return;
    if (k === last.played) g.classList.add('played');
    if (!last.changed.has(k)) return;
    g.classList.add('sown');
    if (animate) {
      g.classList.add('sowing');
      g.style.setProperty('--order', last.changed.get(k));
    }
  };
  const hidden = (node) => {
    node.setAttribute('aria-hidden', 'true');
    return node;
  };

  const store = (side, seeds) => {
    const box = at.store(side);
    const g = el('g', { class: 'store' + (p.side === side ? ' mover' : ''), 'data-store': side, role: 'img', 'aria-label': `${NAMES[side]}'s store, ${seeds} seed${seeds === 1 ? '' : 's'}` });
    g.append(el('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 28, class: 'pit' }));
    const written = hidden(el('g', { class: 'written', 'data-store': side }));
    written.append(el('text', { x: box.count[0], y: box.count[1], class: 'count' }, seeds));
    written.append(el('text', { x: box.label[0], y: box.label[1], class: 'label' + (p.side === side ? ' mover' : '') }, side + ' store'));
    mark(g, ringIndex(p.h, side, 'store'));
    svg.append(g, written);
  };
  store('N', p.northStore);
  store('S', p.southStore);
  // Which way seeds go round: South's row left to right and North's right
  // to left counter-clockwise, the other way clockwise.
  const cw = state.rules.sowing === 'cw';
  const d = at.direction;
  const words = p.h < 3 && d.turn === 0 && UPRIGHT.matches ? (cw ? '↻' : '↺') : cw ? '↻ sowing clockwise' : '↺ sowing counter-clockwise';
  svg.append(el('text', { x: d.x, y: d.y, class: 'direction', 'data-sowing': state.rules.sowing, transform: d.turn ? `rotate(${d.turn} ${d.x} ${d.y})` : '' }, words));

  for (const side of ['N', 'S']) {
    for (let house = 1; house <= p.h; house++) {
      const seeds = side === 'S' ? p.south[house - 1] : p.north[house - 1];
      const spot = at.house(side, house);
      const m = side === p.side ? moves.get(house) : undefined;
      const name = side + house;
      const said = `${NAMES[side]} house ${house}, ${seeds} seed${seeds === 1 ? '' : 's'}`;
      // The house itself (what is clicked, focused and read out) and,
      // beside it, what is written on it: the text is not part of the
      // house for a screen reader, which reads the house's label instead.
      const g = el('g', { class: 'house' + (p.side === side ? ' mover' : ''), 'data-house': name, role: 'img', 'aria-label': said });
      g.append(el('circle', { cx: spot.cx, cy: spot.cy, r: at.r, class: 'pit' }));
      const written = hidden(el('g', { class: 'written', 'data-house': name }));
      written.append(el('text', { x: spot.cx, y: spot.cy + 8, class: 'count' }, seeds));
      written.append(el('text', { x: spot.label[0], y: spot.label[1], class: 'label' + (p.side === side ? ' mover' : '') }, name));
      mark(g, ringIndex(p.h, side, house));
      if (last && ringIndex(p.h, side, house) === last.played) g.setAttribute('aria-label', said + ', the last move');
      if (m && interactive) {
        const canPlay = humanToMove(position);
        if (canPlay) {
          // The whole of the house, its label and its badge is one target for a finger.
          const [bx, by] = spot.badge;
          const xs = [spot.cx - at.r, spot.cx + at.r, bx - 30, bx + 30, spot.label[0] - 16, spot.label[0] + 16];
          const ys = [spot.cy - at.r, spot.cy + at.r, by - 14, by + 10, spot.label[1] - 14, spot.label[1] + 4];
          const [x0, y0] = [Math.min(...xs), Math.min(...ys)];
          g.append(el('rect', { x: x0, y: y0, width: Math.max(...xs) - x0, height: Math.max(...ys) - y0, class: 'hit' }));
          g.classList.add('legal');
          g.setAttribute('role', 'button');
          g.setAttribute('tabindex', '0');
          g.setAttribute('aria-label', said + (showValues ? `, value ${valueText(m)}` : '') + ': play it');
          g.addEventListener('click', () => play(house));
          g.addEventListener('keydown', (e) => {
            if (e.key === 'Enter' || e.key === ' ') {
              e.preventDefault();
              play(house);
            }
          });
        }
        if (showValues) {
          const [bx, by] = spot.badge;
          // A range ("-30..+32") in smaller type on a wider badge, so that it stays inside.
          const text = valueText(m);
          const long = text.length > 4;
          const w = Math.max(60, Math.round(text.length * (long ? 7.8 : 9.5) + 12));
          const badge = el('g', { class: 'badge ' + outcomeClass(m) + (long ? ' long' : ''), 'data-house': name, 'data-value': text });
          badge.append(el('rect', { x: bx - w / 2, y: by - 14, width: w, height: 24, rx: 12, fill: tone(m) }));
          badge.append(el('text', { x: bx, y: by + 3 }, text));
          if (m === answer.moves[0] && answer.exact) badge.classList.add('best');
          written.append(badge);
        }
      }
      svg.append(g, written);
    }
  }
}

// ---- The panels ----

function setStatus(text, cls) {
  $('status').textContent = text;
  $('status').className = cls || '';
}

function renderStatus(answer, shown) {
  if (state.error) return setStatus(state.error, 'error');
  const p = parseRing(shown);
  if (state.preview) {
    return setStatus(`Line of best play, step ${state.preview} of ${answer.pv.length}: ${NAMES[p.side]} to move. ◀ and ▶ step along it.`, 'preview');
  }
  if (!answer) {
    const seconds = state.loading ? ((performance.now() - state.loading.started) / 1000).toFixed(1) : '0.0';
    return setStatus(`${NAMES[p.side]} to move. Analysing… ${seconds} s (Escape stops it)`, 'loading');
  }
  if (!answer.moves.length) return setStatus('Game over: ' + answer.verdict + '.', 'over');
  // Bounds the background search has proven since, if it has.
  const more = state.closing && state.closing.position === answer.position ? state.closing : null;
  const lower = Math.max(answer.lower, more && more.lower !== null ? more.lower : -Infinity);
  const upper = Math.min(answer.upper, more && more.upper !== null ? more.upper : Infinity);
  const proven = !answer.exact && lower === upper ? `: ${verdictFor(answer.to_move, lower)} (each move's value not yet proven)` : null;
  const bounds = answer.exact ? '' : proven || `: ${boundsInWords(answer.to_move, lower, upper)}`;
  if (state.mode !== 'explore') {
    const turn = humanToMove(shown) ? 'Your move' : 'The perfect player is thinking';
    const values = state.hint ? (answer.exact ? ': ' + answer.verdict : bounds) : '';
    return setStatus(`${turn} (${NAMES[answer.to_move]})${values}.`, '');
  }
  setStatus(`${NAMES[answer.to_move]} to move${answer.exact ? ': ' + answer.verdict : bounds}.`, answer.exact ? '' : 'bounds');
}

function renderMoves(entry, answer) {
  const list = $('moves');
  list.replaceChildren();
  const hidden = valuesHidden();
  if (!answer || hidden) {
    if (answer && hidden && humanToMove(entry.position)) list.append(Object.assign(document.createElement('li'), { textContent: 'Values hidden: press Hint to see them.', className: 'explain' }));
    return;
  }
  for (const m of answer.moves) {
    const li = document.createElement('li');
    li.className = outcomeClass(m);
    li.dataset.house = answer.to_move + m.house;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = answer.to_move + m.house;
    button.disabled = !humanToMove(entry.position);
    button.addEventListener('click', () => play(m.house));
    const value = document.createElement('span');
    value.className = 'value';
    value.style.background = tone(m);
    value.textContent = valueText(m);
    const said = document.createElement('span');
    said.textContent = m.value !== null ? verdictFor(answer.to_move, m.value) : boundsInWords(answer.to_move, m.lower, m.upper);
    li.append(button, value, said);
    list.append(li);
  }
}

function renderPV(answer) {
  const pv = $('pv');
  pv.replaceChildren();
  const hidden = state.mode !== 'explore' && !state.hint;
  const line = answer && !hidden ? answer.pv : [];
  $('pv-back').disabled = state.preview === 0;
  $('pv-forward').disabled = state.preview >= line.length;
  $('pv-play').disabled = state.preview === 0 || state.mode !== 'explore';
  if (!answer || hidden) return;
  if (!line.length) pv.textContent = answer.moves.length ? 'not known in time' : 'the game is over';
  // Turns numbered on from the game's: a turn is one side's moves, extra moves included.
  let [turn, side] = turnsTo(state.cursor);
  line.forEach((step, i) => {
    if (step.side !== side) {
      turn += 1;
      side = step.side;
      pv.append(Object.assign(document.createElement('span'), { className: 'turn', textContent: turn + '.' }));
    }
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'step' + (i + 1 === state.preview ? ' shown' : '');
    b.textContent = step.side + step.house;
    b.title = 'the position after ' + step.side + step.house;
    b.addEventListener('click', () => {
      state.preview = i + 1;
      render();
    });
    pv.append(b);
  });
  if (answer.pv_cut) pv.append(' … (cut short)');
  if (answer.pv_endless) pv.append(' … (play goes round for ever)');
}

/** South's value after each move of the game, or bounds on it. */
function southValue(entry) {
  const a = answerOf(entry);
  if (!a) return entry.south === undefined ? null : { lo: entry.south, hi: entry.south };
  const flip = a.to_move === 'S' ? 1 : -1;
  if (a.exact) return { lo: flip * a.value, hi: flip * a.value };
  return flip > 0 ? { lo: a.lower, hi: a.upper } : { lo: -a.upper, hi: -a.lower };
}

/** The turns played up to history entry `index`, and the side that made the last move (null at the start). */
function turnsTo(index) {
  let turns = 0;
  let side = null;
  for (const entry of state.history.slice(1, index + 1)) {
    if (entry.move.side !== side) turns += 1;
    side = entry.move.side;
  }
  return [turns, side];
}

/**
 * The game played, turn by turn; after a move where another line was
 * played before, that line in brackets (a variation, with the variations
 * inside it), each of its moves clickable: clicking one makes that line
 * the game's.
 */
function renderRecord() {
  const record = $('record');
  record.replaceChildren();
  const span = (className, textContent) => Object.assign(document.createElement('span'), { className, textContent });
  /**
   * A move's button after turn `turn` of `side`: the turn and side after
   * it. `first`: the first move of a variation, which says its turn even
   * when it goes on with the same side's (`3…`), after the variation's
   * opening parenthesis. The parenthesis, the turn and the button are one
   * group, which a line never breaks.
   */
  const ply = (into, entry, turn, side, cls, go, first = false) => {
    const group = span('together', first ? '(' : '');
    if (entry.move.side !== side) {
      turn += 1;
      side = entry.move.side;
      group.append(span('turn', turn + '.'));
    } else if (first) {
      group.append(span('turn', turn + '…'));
    }
    const lost = valuesHidden() ? null : lostBy(entry.move);
    const b = Object.assign(document.createElement('button'), { type: 'button', textContent: entry.move.side + entry.move.house });
    b.className = 'ply' + cls + (lost > 0 ? ' blunder' : '');
    b.title = lost > 0 ? `gave away ${lost}` : lost === 0 ? 'kept the value' : '';
    b.addEventListener('click', go);
    group.append(b);
    into.append(group);
    return [turn, side];
  };
  // The variations after `entry`; `open()` makes `entry` part of the game's
  // line (its variation opened, if it is in one) and gives its index there.
  const variations = (into, entry, open, turn, side) => {
    for (const [k, tail] of (entry.variations || []).entries()) {
      const line = span('variation', '');
      const first = () => {
        const at = open();
        switchLine(at, k);
        return at + 1;
      };
      let [t, s] = [turn, side];
      tail.forEach((e, j) => {
        [t, s] = ply(line, e, t, s, '', () => {
          const base = first();
          state.pushAddress = true;
          goTo(base + j);
        }, j === 0);
        variations(line, e, () => first() + j, t, s);
      });
      // The closing parenthesis with the last move shown (a line never begins with it).
      [...line.querySelectorAll('.together')].at(-1).append(')');
      into.append(line);
    }
  };
  const start = Object.assign(document.createElement('button'), { type: 'button', textContent: 'start', className: state.cursor === 0 ? 'ply now' : 'ply' });
  start.addEventListener('click', () => goTo(0));
  record.append(start);
  let [turn, side] = [0, null];
  variations(record, state.history[0], () => 0, turn, side);
  state.history.slice(1).forEach((entry, j) => {
    const i = j + 1;
    [turn, side] = ply(record, entry, turn, side, (i === state.cursor ? ' now' : '') + (i > state.cursor ? ' undone' : ''), () => goTo(i));
    variations(record, entry, () => i, turn, side);
  });
}

/**
 * A move other than the one played next before: the old continuation is
 * kept as a variation of the position it left, and the game goes on
 * without it.
 */
function branch() {
  const rest = state.history.slice(state.cursor + 1);
  const here = state.history[state.cursor];
  if (rest.length) here.variations = [...(here.variations || []), rest];
  state.history = state.history.slice(0, state.cursor + 1);
}

/** Makes variation `k` after history entry `at` the game's line, the line it replaces kept as a variation. */
function switchLine(at, k) {
  const here = state.history[at];
  const tail = here.variations[k];
  const old = state.history.slice(at + 1);
  here.variations.splice(k, 1, ...(old.length ? [old] : []));
  state.history = state.history.slice(0, at + 1).concat(tail);
}

/** Whole, round steps for an axis from 0 to `top`: about `count` of them, at least 1 apart. */
function ticks(top, count) {
  const raw = Math.max(top / count, 1);
  const base = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * base).find((k) => k >= raw);
  const out = [];
  for (let v = 0; v <= top; v += step) out.push(v);
  return out;
}

/**
 * South's value after each move, drawn in the page's own pixels (so that
 * its text is as large on a phone as on a desktop): moves along the
 * bottom, South's value up the side, bounds as bars, the moves that gave
 * value away in red. The chart is a slider for the keyboard: the arrows
 * step through the game.
 */
function renderChart() {
  const svg = $('chart');
  const points = state.history.map((entry, i) => ({ i, v: southValue(entry), move: entry.move }));
  const known = points.filter((p) => p.v);
  const top = Math.max(4, ...known.map((p) => Math.max(Math.abs(p.v.lo), Math.abs(p.v.hi))));
  const width = Math.max(280, Math.round(svg.clientWidth || 600));
  const height = width < 500 ? 200 : 220;
  const [left, right, above, below] = [40, 16, 28, 40];
  const n = Math.max(points.length - 1, 1);
  const x = (i) => left + ((width - left - right) * i) / n;
  const y = (v) => above + ((height - above - below) * (top - v)) / (2 * top);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.replaceChildren();
  // The value axis: round steps either side of 0, South ahead above.
  for (const v of ticks(top, 2)) {
    for (const t of v ? [v, -v] : [0]) {
      svg.append(el('line', { x1: left, x2: width - right, y1: y(t), y2: y(t), class: t ? 'grid' : 'axis' }));
      svg.append(el('text', { x: left - 6, y: y(t) + 4, class: 'tick end' }, signed(t)));
    }
  }
  svg.append(el('text', { x: left, y: 14, class: 'tick' }, 'South ahead ↑'));
  // The move axis: moves (plies) from the start.
  const moveTicks = ticks(n, Math.max(2, Math.floor((width - left - right) / 56)));
  svg.append(el('line', { x1: left, x2: width - right, y1: height - below, y2: height - below, class: 'frame' }));
  for (const i of moveTicks.filter((i) => i <= n)) {
    svg.append(el('line', { x1: x(i), x2: x(i), y1: height - below, y2: height - below + 5, class: 'frame' }));
    svg.append(el('text', { x: x(i), y: height - below + 18, class: 'tick middle' }, String(i)));
  }
  svg.append(el('text', { x: width - right, y: height - 4, class: 'tick end' }, 'moves →  (North ahead ↓)'));
  const here = points[state.cursor];
  svg.setAttribute('aria-valuemax', String(points.length - 1));
  svg.setAttribute('aria-valuenow', String(state.cursor));
  if (valuesHidden()) {
    svg.setAttribute('aria-valuetext', `after ${state.cursor} move${state.cursor === 1 ? '' : 's'}: values hidden`);
    svg.append(el('text', { x: (left + width - right) / 2, y: y(0) - 8, class: 'tick middle' }, 'Values hidden until the game ends, or Hint'));
    return;
  }
  const said = here && here.v ? 'South ' + (here.v.lo === here.v.hi ? signed(here.v.lo) : signed(here.v.lo) + ' to ' + signed(here.v.hi)) : 'not analysed yet';
  const move = here && here.move ? ` (${here.move.side}${here.move.house})` : ' (the start)';
  svg.setAttribute('aria-valuetext', `after ${state.cursor} move${state.cursor === 1 ? '' : 's'}${move}: ${said}`);
  const exact = known.filter((p) => p.v.lo === p.v.hi);
  if (exact.length > 1) svg.append(el('polyline', { points: exact.map((p) => `${x(p.i)},${y(p.v.lo)}`).join(' '), class: 'line' }));
  for (const p of known) {
    if (p.v.lo !== p.v.hi) svg.append(el('line', { x1: x(p.i), x2: x(p.i), y1: y(p.v.lo), y2: y(p.v.hi), class: 'band' }));
    const lost = lostBy(p.move);
    const dot = el('circle', { cx: x(p.i), cy: y((p.v.lo + p.v.hi) / 2), r: p.i === state.cursor ? 6 : 4, class: 'dot' + (lost > 0 ? ' turned' : '') + (p.i > state.cursor ? ' undone' : '') });
    // A finger's target around the dot, drawn clear.
    const target = el('circle', { cx: x(p.i), cy: y((p.v.lo + p.v.hi) / 2), r: 14, class: 'target' });
    target.addEventListener('click', () => goTo(p.i));
    svg.append(target);
    target.append(el('title', {}, (p.move ? p.move.side + p.move.house + ': ' : 'start: ') + 'South ' + (p.v.lo === p.v.hi ? signed(p.v.lo) : signed(p.v.lo) + '..' + signed(p.v.hi)) + (lost > 0 ? `, gave away ${lost}` : '')));
    svg.append(dot);
    if (lost > 0) svg.append(el('text', { x: x(p.i), y: y((p.v.lo + p.v.hi) / 2) - 9, class: 'tick turned' }, p.move.side + p.move.house));
  }
}

function renderDetails(answer) {
  if (!answer) return ($('details').textContent = '');
  const db = answer.database;
  const from = { book: 'the opening book', game_over: 'the rules (the game is over)', database: 'a database probe', search: 'a search', retrograde: 'retrograde analysis', bounds: 'bounds proven in time', kept: 'an exact answer the server kept from an earlier search' }[answer.source] || answer.source;
  const rules = RULES.map((r) => r + '=' + answer.rules[r]).join(' ');
  let text = `Position ${answer.position} (${rules}): answered by ${from}`;
  if (db) text += ` over the ${db.max_seeds}-seed database ${db.path ? db.path : 'built in memory'}${db.kept ? ' (kept from an earlier request)' : ''}`;
  text += answer.source === 'kept' ? `, read in ${answer.seconds.toFixed(3)} s.` : `, ${answer.nodes.toLocaleString('en')} nodes in ${answer.seconds.toFixed(2)} s.`;
  $('details').textContent = text;
}

// ---- The address ----

/**
 * The address of the position on the board. A move played is a new entry
 * of the browser's history (Back steps back a move); anything else
 * replaces the current one.
 */
function writeAddress() {
  const entry = current();
  if (!entry) return;
  const params = { position: entry.position };
  // The game played: its first position and its moves (and which of them
  // the board shows), so that a reload or a shared link restores the
  // record and the chart too.
  if (state.history.length > 1 || (state.history[0].variations || []).length) {
    params.start = state.history[0].position;
    params.moves = movesText(state.history);
    if (state.cursor + 1 < state.history.length) params.at = state.cursor;
  }
  if (state.mode !== 'explore') params.play = state.mode;
  const address = '?' + query(params);
  if (address === location.search) return;
  if (state.pushAddress) history.pushState({ cursor: state.cursor }, '', address);
  else history.replaceState({ cursor: state.cursor }, '', address);
  state.pushAddress = false;
}

/** Back or Forward: the move of the game that address was written for, if the game still holds it. */
function steppedInHistory(event) {
  const at = event.state && event.state.cursor;
  const position = new URLSearchParams(location.search).get('position');
  const sameRules = rulesOfAddress();
  // The board already shows it (a jump within the page, such as the skip link's).
  if (current() && position === current().position && sameRules) return;
  if (sameRules && typeof at === 'number' && state.history[at] && state.history[at].position === position) {
    goTo(at);
    return;
  }
  // Another game than the one on the board (before Start over, a new game,
  // other rules, or another line): the game the address holds, its rules,
  // record and all.
  const asked = readAddress();
  if (asked.game) restoreGame(asked.game, position);
  else if (position) openPosition(position);
  else if (asked.houses || asked.seeds) newGame(asked.houses || 6, asked.seeds || 4);
}

/**
 * The game the address names. A rule it names that is not one of the
 * menu's is said (in `problems`) and left at its default, before any
 * search, so that the page works with what was right.
 */
function readAddress() {
  const q = new URLSearchParams(location.search);
  const problems = [];
  // (A value too long to show whole is cut.)
  const shown = (name) => {
    const text = q.get(name);
    return `${name}=${text.length > 40 ? text.slice(0, 40) + '…' : text}`;
  };
  // A rule the address does not name is the default one (as the address of
  // a game under the default rules is written), whatever the page showed.
  for (const r of RULES) {
    state.rules[r] = DEFAULT_RULES[r];
    if (!q.has(r)) continue;
    const allowed = [...$(r).options].map((o) => o.value);
    if (allowed.includes(q.get(r))) state.rules[r] = q.get(r);
    else problems.push(`${shown(r)} in the address is not a rule (${allowed.join(' or ')}): ${DEFAULT_RULES[r]} is used`);
  }
  state.mode = 'explore';
  if (q.get('play') === 'S' || q.get('play') === 'N') state.mode = q.get('play');
  else if (q.has('play')) problems.push(`${shown('play')} in the address is not a side to play (S or N): both sides are explored`);
  let line = null;
  if (q.get('moves')) {
    try {
      line = parseMoves(q.get('moves'));
    } catch (e) {
      problems.push(`${shown('moves')} in the address is not a game record such as S3.N1(S2).S4 (${e.message}), so it was not restored`);
    }
    if (line && !q.get('start')) {
      problems.push(`${shown('moves')} in the address has no start= (the position the moves are played from), so it was not restored`);
      line = null;
    }
  }
  const at = q.has('at') ? Number(q.get('at')) : line ? line.moves.length : 0;
  if (line && !(Number.isInteger(at) && at >= 0)) {
    problems.push(`${shown('at')} in the address is not a move of the game (0, 1, 2, ...), so the record was not restored`);
    line = null;
  }
  const game = line ? { start: q.get('start'), line, at } : null;
  return { position: q.get('position'), houses: q.get('houses'), seeds: q.get('seeds'), game, problems };
}

/** Whether the page's rules are those the address names. */
function rulesOfAddress() {
  const q = new URLSearchParams(location.search);
  return RULES.every((r) => (q.get(r) || DEFAULT_RULES[r]) === state.rules[r]);
}

// ---- The editor ----

function openEditor() {
  const p = parseRing(current().position);
  const board = $('editor-board');
  board.replaceChildren();
  board.style.setProperty('--houses', p.h);
  const input = (name, value, column, row) => {
    const label = document.createElement('label');
    label.style.gridColumn = column;
    label.style.gridRow = row;
    label.textContent = name;
    const i = Object.assign(document.createElement('input'), { type: 'number', min: 0, max: 255, value, name });
    i.dataset.cell = name;
    label.append(i);
    board.append(label);
  };
  input('N store', p.northStore, 1, '1 / span 2');
  input('S store', p.southStore, p.h + 2, '1 / span 2');
  for (let house = 1; house <= p.h; house++) {
    input('N' + house, p.north[house - 1], p.h - house + 2, 1);
    input('S' + house, p.south[house - 1], house + 1, 2);
  }
  $('editor-side').value = p.side;
  $('editor-error').textContent = '';
  $('editor').hidden = false;
}

async function applyEditor(event) {
  event.preventDefault();
  const p = parseRing(current().position);
  const cell = (name) => $('editor-board').querySelector(`[data-cell="${name}"]`).value.trim();
  const edited = {
    ...p,
    south: p.south.map((_, i) => cell('S' + (i + 1))),
    north: p.north.map((_, i) => cell('N' + (i + 1))),
    southStore: cell('S store'),
    northStore: cell('N store'),
    side: $('editor-side').value,
  };
  // Each cell a count of seeds, said of the cell, before the server is asked.
  const names = [...p.south.map((_, i) => 'S' + (i + 1)), 'S store', ...p.north.map((_, i) => 'N' + (i + 1)), 'N store'];
  const wrong = names.find((name) => !/^\d{1,3}$/.test(cell(name)) || Number(cell(name)) > 255);
  if (wrong) {
    const typed = cell(wrong);
    $('editor-error').textContent = `${wrong}: ${typed === '' ? 'empty' : '"' + typed + '"'} is not a count of seeds (give a whole number from 0 to 255).`;
    return;
  }
  try {
    const answer = await api('/api/v1/analysis', { position: ringOf(edited) });
    answers.set(keyOf(answer.position, state.rules), answer);
    startFrom(answer.position);
    $('editor').hidden = true;
    render();
  } catch (e) {
    $('editor-error').textContent = 'Not a position to analyse: ' + e.message;
  }
}

// ---- Bounds closing in the background ----

/** Whether an answer is exact: the position's value and every move's. */
const allExact = (answer) => answer.exact && answer.moves.every((m) => m.value !== null && m.value !== undefined);

/** The question the background search answers: the current position and rules. */
const backgroundQuery = () => query({ position: current().position });

let backgroundTimer = null;
/** Counts the looks at the background search: only the latest one's answer is shown and followed. */
let backgroundLooks = 0;

/**
 * An answer with bounds only: the server searches on in the background
 * (`/api/v1/background`); the page shows its bounds closing, once a
 * second, with Stop and More time, and asks for the answer again when it
 * is exact.
 */
function watchBackground() {
  clearTimeout(backgroundTimer);
  const entry = current();
  const answer = answerOf(entry);
  const box = $('background');
  if (!entry || !answer || !answer.moves.length || allExact(answer) || state.preview) {
    backgroundLooks += 1;
    box.hidden = true;
    return;
  }
  const asked = backgroundQuery();
  const look = ++backgroundLooks;
  fetch('/api/v1/background?' + asked)
    .then((r) => (r.ok ? r.json() : null))
    .then((told) => {
      if (!told || look !== backgroundLooks || !current() || backgroundQuery() !== asked) return;
      showBackground(told, answer);
      if (told.state === 'exact') {
        // The server now has the exact answer: asked again, it comes at once.
        answers.delete(keyOf(entry.position, state.rules));
        render();
      } else if (told.state === 'running') {
        backgroundTimer = setTimeout(watchBackground, 1000);
      }
    })
    .catch(() => {
      if (look === backgroundLooks) box.hidden = true;
    });
}

function showBackground(told, answer) {
  const box = $('background');
  box.hidden = false;
  if (!told.state) {
    // Answered with bounds, and not searched on: every background place was taken.
    $('background-text').textContent = 'Not searched further: the server\'s background searches are busy with other positions.';
    $('background-stop').hidden = true;
    $('background-more').hidden = false;
    $('background-more').textContent = 'Search on';
    return;
  }
  $('background-more').textContent = 'More time';
  // The status says the bounds proven so far.
  state.closing = { position: answer.position, lower: told.lower, upper: told.upper };
  renderStatus(answer, answer.position);
  const side = NAMES[answer.to_move];
  const hidden = valuesHidden();
  const bounds = told.lower === told.upper ? `, ${side}'s value proven: ${signed(told.lower)}` : `, ${side}'s value between ${signed(told.lower)} and ${signed(told.upper)}`;
  const known = told.lower !== null && told.upper !== null && !hidden ? bounds : '';
  const nodes = told.nodes >= 1e6 ? (told.nodes / 1e6).toFixed(1) + ' M' : told.nodes.toLocaleString('en');
  const text = {
    running: told.building !== null ? `Building a database for the search in the background: ${Math.round(told.building * 100)}%…` : `Proving in the background: ${Math.round(told.seconds)} s, ${nodes} nodes${known}; ${Math.round(told.seconds_left)} s left.`,
    exact: 'Proven exactly in the background.',
    out_of_time: `The background search ran out of time after ${Math.round(told.seconds)} s${known}.`,
    stopped: `The background search was stopped after ${Math.round(told.seconds)} s${known}.`,
    failed: 'The background search failed.',
  }[told.state];
  $('background-text').textContent = text;
  $('background-stop').hidden = told.state !== 'running';
  $('background-more').hidden = !told.more_allowed;
}

async function backgroundAction(action) {
  const entry = current();
  const answer = answerOf(entry);
  if (!entry || !answer) return;
  const response = await fetch(`/api/v1/background/${action}?` + backgroundQuery(), { method: 'POST' }).catch(() => null);
  if (!response) return;
  const told = await response.json().catch(() => null);
  if (told) showBackground(told, answer);
  watchBackground();
}

// ---- Putting it together ----

function render() {
  const entry = current();
  // Analyse again: after a stop, and after a failure (a server out of reach may be back).
  $('again').hidden = !state.error;
  clearInterval(ticker);
  // With no game on the board, nothing to undo, step or copy.
  for (const id of ['undo', 'redo', 'restart', 'edit', 'copy-link', 'pv-back', 'pv-forward', 'pv-play']) $(id).disabled = !entry;
  if (!entry) {
    const seconds = () => (state.loading ? ((performance.now() - state.loading.started) / 1000).toFixed(1) : '0.0');
    const said = state.error === STOPPED ? 'Stopped (Escape): no game yet. Analyse again, or choose a game under Houses and Seeds.' : state.error;
    const starting = () => setStatus(said || `Starting… ${seconds()} s (Escape stops it)`, state.error ? 'error' : 'loading');
    starting();
    if (state.loading) ticker = setInterval(starting, 200);
    return;
  }
  valuesOfRestoredMoves();
  const answer = answerOf(entry);
  if (state.preview && (!answer || state.preview > answer.pv.length)) state.preview = 0;
  const shown = state.preview ? answer.pv[state.preview - 1].position : entry.position;
  const last = state.preview ? null : lastMove(entry, state.cursor);
  drawBoard(shown, state.preview ? null : answer, !state.preview, last, last && state.animated !== entry);
  if (last) state.animated = entry;
  if (state.keepFocus) {
    const next = $('board').querySelector('.house.legal');
    if (next) {
      next.focus();
      state.keepFocus = false;
    }
  }
  renderStatus(answer, shown);
  $('line-steps').hidden = !state.preview;
  if (state.preview) $('line-forward').disabled = state.preview >= answer.pv.length;
  renderMoves(entry, answer);
  renderPV(answer);
  renderRecord();
  renderChart();
  renderDetails(answer);
  $('undo').disabled = state.cursor === 0;
  $('restart').disabled = state.history.length < 2;
  $('redo').disabled = state.cursor + 1 >= state.history.length;
  $('hint').hidden = state.mode === 'explore';
  $('hint').disabled = !answer || !answer.moves.length || !humanToMove(entry.position) || state.hint;
  for (const r of RULES) $(r).value = state.rules[r];
  $('mode').value = state.mode;
  writeAddress();
  if (!answer && !state.error) analyseCurrent();
  if (state.loading) ticker = setInterval(() => current() && renderStatus(answerOf(current()), current().position), 200);
  maybeComputerMoves();
  fillRecord();
  watchBackground();
}

function stepLine(by) {
  const answer = answerOf(current());
  if (!answer) return;
  state.preview = Math.max(0, Math.min(state.preview + by, answer.pv.length));
  render();
}

function playLine() {
  const answer = answerOf(current());
  if (!answer || !state.preview) return;
  // Along a line of best play every move keeps the value: South's, if it is proven, is that of the position.
  const south = answer.exact ? (answer.to_move === 'S' ? answer.value : -answer.value) : null;
  branch();
  answer.pv.slice(0, state.preview).forEach((step) => {
    const value = south === null ? null : step.side === 'S' ? south : -south;
    state.history.push({ position: step.position, move: { side: step.side, house: step.house, value, best: value }, south: south ?? undefined });
  });
  state.cursor = state.history.length - 1;
  moved();
  render();
}

function start() {
  $('new-game').addEventListener('submit', (e) => {
    e.preventDefault();
    newGame($('houses').value, $('seeds').value, true);
  });
  for (const r of RULES) {
    $(r).addEventListener('change', () => {
      state.rules[r] = $(r).value;
      // Under other rules the game so far is another game: it starts here
      // (Back returns to the game before, under its rules).
      if (current()) startFrom(current().position);
      state.pushAddress = true;
      render();
    });
  }
  $('mode').addEventListener('change', () => {
    state.mode = $('mode').value;
    state.hint = false;
    // The notes of the other mode are not carried into this one's.
    state.lastNote = '';
    $('feedback').textContent = '';
    render();
  });
  $('hint').addEventListener('click', () => {
    state.hint = true;
    render();
  });
  $('again').addEventListener('click', () => {
    state.error = null;
    if (current()) render();
    else newGame($('houses').value, $('seeds').value);
  });
  window.addEventListener('popstate', steppedInHistory);
  // Turning a phone, or resizing a window across the width where the board stands upright.
  UPRIGHT.addEventListener('change', () => current() && render());
  window.addEventListener('resize', () => current() && renderChart());
  $('chart').addEventListener('keydown', (e) => {
    const to = { ArrowLeft: state.cursor - 1, ArrowDown: state.cursor - 1, ArrowRight: state.cursor + 1, ArrowUp: state.cursor + 1, Home: 0, End: state.history.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    goTo(to);
  });
  // Stepping the line of best play from under the board too (on a phone
  // the line's own buttons are far below it).
  $('line-back').addEventListener('click', () => stepLine(-1));
  $('line-forward').addEventListener('click', () => stepLine(1));
  $('line-leave').addEventListener('click', () => {
    state.preview = 0;
    render();
  });
  $('background-stop').addEventListener('click', () => backgroundAction('stop'));
  $('background-more').addEventListener('click', () => backgroundAction('more'));
  $('restart').addEventListener('click', () => {
    if (!current()) return;
    startFrom(state.history[0].position);
    state.pushAddress = true;
    render();
  });
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('pv-back').addEventListener('click', () => stepLine(-1));
  $('pv-forward').addEventListener('click', () => stepLine(1));
  $('pv-play').addEventListener('click', playLine);
  $('edit').addEventListener('click', openEditor);
  $('editor').addEventListener('submit', applyEditor);
  $('editor-cancel').addEventListener('click', () => ($('editor').hidden = true));
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $('feedback').textContent = 'Link copied: it holds this position and the rules.';
    } catch {
      $('feedback').textContent = 'The link to this position: ' + location.href;
    }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') return stop();
    if (e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowLeft') undo();
    if (e.key === 'ArrowRight') redo();
  });

  const asked = readAddress();
  let opening;
  if (asked.game) {
    opening = restoreGame(asked.game, asked.position);
  } else if (asked.position) {
    opening = openPosition(asked.position);
  } else if (asked.houses || asked.seeds) {
    $('houses').value = asked.houses || 6;
    $('seeds').value = asked.seeds || 4;
    opening = newGame($('houses').value, $('seeds').value);
  } else {
    opening = firstGame();
  }
  // What was wrong with the address, said once the game it could give is on the board.
  if (asked.problems.length) {
    opening.finally(() => {
      $('feedback').textContent = asked.problems.join('; ') + '.';
      $('feedback').className = 'blunder';
    });
  }
}

start();
