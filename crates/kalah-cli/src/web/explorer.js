// The board explorer of `kalah serve`: a page over the JSON API (docs/api.md).
//
// The page decides nothing about the game: the server gives every legal
// move with its value and the position it leads to, and a line of best
// play with the position after each step. The page draws them, keeps the
// game played as a tree (the main line and its variations; undo, redo, a
// chart of the value), and writes the position, the rules and the game
// into its address so that a reload or a shared link restores them.
//
// Searches follow the screen: the position on the board is asked with the
// server's time limit, and where that gives bounds only, the server's
// background search follows it (`/api/v1/background/follow`) until the
// board shows another position; the values of the game's earlier moves
// are filled with short answers that never take the background search.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const RULES = ['capture', 'end', 'leftovers', 'sowing', 'relay'];
const DEFAULT_RULES = { capture: 'standard', end: 'instant', leftovers: 'owner', sowing: 'ccw', relay: 'off' };
const NAMES = { S: 'South', N: 'North' };
const other = (side) => (side === 'S' ? 'N' : 'S');
/** Seconds of a short answer: a position of a game's record, not on the board. */
const SHORT_TIME = 2;
/** Seconds of a quick answer: only the positions its moves lead to are wanted. */
const QUICK_TIME = 0.05;

const state = {
  rules: { ...DEFAULT_RULES },
  mode: 'explore', // 'explore', or the side the player plays against the perfect player
  view: 'S', // whose values the badges, the list and the chart show: the side at the bottom of the board
  root: null, // the game: a tree of nodes {position, move, children, parent}, children[0] the main line
  history: [], // the line shown: nodes from the root, each the child of the one before
  cursor: 0, // the node of `history` on the board
  hint: false, // values shown in play mode for this position
  preview: 0, // steps along the line of best play shown on the board (0: the position itself)
  error: null, // what the last request said was wrong
  loading: null, // {key, started, what}
  abort: null, // stops the request under way (Escape)
  again: null, // what "Analyse again" does after a stop or a failure
  pushAddress: false, // the next address written is a new entry of the browser's history (a move)
  keepFocus: false, // a move was made from the board: the keyboard stays there
  lastNote: '', // the note on the player's own last move, which the perfect player's answer is added to
  animated: null, // the node whose last move the board has shown sown (it is shown so once)
  filling: null, // the short analysis under way of a position of the record
  followed: null, // the question whose background search this page follows (the board's position)
  closing: null, // {key, lower, upper, running}: what the background search of the board's position has proven
  serial: 0, // numbers the entries this page writes in the browser's history
  focusHouse: null, // the house of the board the keyboard was last on
  stopped: null, // the question whose background search the player stopped (not followed until the board leaves it)
};
/**
 * Answers by "position|rules". One not exact that was asked with less than
 * the server's time carries `asked`: 'quick' (a twentieth of a second: the
 * positions its moves lead to, and what is known at once) or 'short' (a
 * position of the record, not on the board): shown until a fuller one comes.
 */
const answers = new Map();
let ticker = null;
let computerTimer = null;
/** This page, for the server: its background search follows the position this page shows. */
const VIEWER = (globalThis.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2)).replace(/[^A-Za-z0-9-]/g, '').slice(0, 36);

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
const answerOf = (node) => node && answers.get(keyOf(node.position, state.rules));

function signed(v) {
  return v > 0 ? '+' + v : String(v);
}

/** A value or its bounds, `{value, lower, upper}`. */
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

/** A fill for a value (for the side it is shown for): green a win, red a loss, darker the larger the margin. */
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

/** Bounds `{lower, upper}` as a value object: `value` set when they meet. */
function asValue(lower, upper) {
  return { value: lower === upper ? lower : null, lower, upper };
}

/** A value of `mover`'s (bounds `{lower, upper}`) as `side`'s: the same, or turned over. */
function seenBy(side, mover, b) {
  return side === mover ? asValue(b.lower, b.upper) : asValue(-b.upper, -b.lower);
}

// ---- What is known of a position ----

/**
 * The bounds on the value of `node`'s position for its side to move, from
 * everything the page knows: its answer, the background search of it,
 * and the move that led to it (a move's value is the value of the
 * position it leads to). `null` when nothing is known yet.
 */
function knownBounds(node) {
  if (!node) return null;
  let lower = -Infinity;
  let upper = Infinity;
  const a = answerOf(node);
  const mover = parseRing(node.position).side;
  if (a) [lower, upper] = [a.lower, a.upper];
  const c = state.closing;
  if (c && c.key === keyOf(node.position, state.rules)) {
    if (c.lower !== null) lower = Math.max(lower, c.lower);
    if (c.upper !== null) upper = Math.min(upper, c.upper);
  }
  const m = node.move;
  if (m && m.lower !== null && m.lower !== undefined) {
    // The move's bounds are its mover's; the position's, the side to move now.
    const b = seenBy(mover, m.side, { lower: m.lower, upper: m.upper });
    lower = Math.max(lower, b.lower);
    upper = Math.min(upper, b.upper);
  }
  if (lower === -Infinity && upper === Infinity) return null;
  // (Bounds proven by different searches meet or overlap; never crossed, but the page does not trust it blindly.)
  if (lower > upper) return a ? { lower: a.lower, upper: a.upper } : null;
  return { lower, upper };
}

/**
 * The moves of `answer` (of `node`'s position), each with bounds tightened
 * by what is known of the position: no move is worth more than the
 * position, and a move of the position's value is its best.
 */
function knownMoves(node, answer) {
  const b = knownBounds(node);
  return answer.moves.map((m) => {
    const upper = b ? Math.min(m.upper ?? m.value, b.upper) : m.upper;
    const lower = Math.min(m.lower ?? m.value, upper);
    return { ...m, ...asValue(lower, upper) };
  });
}

/** Whether an answer is exact: the position's value and every move's. */
const allExact = (answer) => answer.exact && answer.moves.every((m) => m.value !== null && m.value !== undefined);

// ---- Talking to the server ----

/** `params` and the rules that are not the defaults, as a query string. */
function query(params, rules = state.rules) {
  const q = new URLSearchParams(params);
  for (const r of RULES) if (rules[r] !== DEFAULT_RULES[r]) q.set(r, rules[r]);
  return q.toString();
}

/** Fetches an API answer; retries while the server is busy (503). `signal` stops it (Escape). */
async function api(path, params, signal, rules = state.rules) {
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      response = await fetch(path + '?' + query(params, rules), { signal, headers: { 'X-Kalah-Viewer': VIEWER } });
    } catch (e) {
      if (e.name === 'AbortError') throw new Error(STOPPED);
      throw new Error('the server cannot be reached (' + e.message + ')');
    }
    const body = await response.json().catch(() => ({ error: 'the server sent no JSON (status ' + response.status + ')' }));
    if (response.status === 503 && attempt < 20) {
      setStatus('Every search slot of the server is busy: trying again…', 'loading');
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
  if (!state.loading || !state.abort) return false;
  state.abort.abort();
  return true;
}

/** Asks for the analysis of the board's position, unless it is known (an answer of the full time, or an exact one). */
function analyseCurrent() {
  const entry = current();
  const key = keyOf(entry.position, state.rules);
  const known = answers.get(key);
  if ((known && (!known.asked || allExact(known))) || (state.loading && state.loading.key === key)) return;
  // Something else under way (a new game, a record replayed): the analysis waits for it.
  if (state.loading && state.loading.what !== 'analysis') return;
  // The analysis of a position the board has left is stopped: the server stops its search.
  if (state.loading && state.abort) state.abort.abort();
  state.loading = { key, started: performance.now(), what: 'analysis' };
  state.error = null;
  state.again = null;
  state.abort = new AbortController();
  const rules = { ...state.rules };
  api('/api/v1/analysis', { position: entry.position }, state.abort.signal, rules)
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

/**
 * An answer with a time too short for a search (the positions of a record,
 * a game's start): kept, marked quick unless exact, where nothing better is
 * (so what is known at once, such as a value this project has proven, is
 * shown while the position is analysed).
 */
async function quick(position, rules = state.rules, signal) {
  const answer = await api('/api/v1/analysis', { position, time_limit: QUICK_TIME }, signal, rules);
  const key = keyOf(answer.position, rules);
  if (!allExact(answer)) answer.asked = 'quick';
  if (allExact(answer) || !answers.has(key)) answers.set(key, answer);
  return answer;
}

/** Counts the games asked for: a newer one always wins over an older answer still on its way. */
let gamesAsked = 0;

/**
 * Starts Kalah(houses, seeds): its start, as the server writes it, on the
 * board at once (the server says at once whether the size is one it
 * plays), then analysed as any position. `another`: a game the player
 * asked for, which Back leaves.
 */
async function newGame(houses, seeds, another = false) {
  const asked = ++gamesAsked;
  const size = `Kalah(${houses},${seeds})`;
  stop();
  state.loading = { key: 'start', started: performance.now(), what: `Starting ${size}` };
  state.error = null;
  state.again = () => newGame(houses, seeds, another);
  state.abort = new AbortController();
  render();
  try {
    const answer = await api('/api/v1/start', { houses, seeds, time_limit: QUICK_TIME }, state.abort.signal);
    if (asked !== gamesAsked) return;
    if (!allExact(answer)) answer.asked = 'quick';
    answers.set(keyOf(answer.position, state.rules), answer);
    state.again = null;
    startFrom(answer.position);
    // Another game: Back returns to the one before.
    state.pushAddress = another;
  } catch (e) {
    if (asked === gamesAsked) state.error = e.message === STOPPED ? `Stopped (Escape): ${size} not started. Analyse again starts it.` : `${size}: ${e.message}`;
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
 * moves are exact at once; otherwise Kalah(4,4).
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
      booked = (await api('/api/v1/start', { houses: 6, seeds: 4, time_limit: QUICK_TIME })).source === 'book';
    } catch {
      // No answer: the smaller game.
    }
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

function newNode(position, move, parent) {
  return { position, move, children: [], parent };
}

function startFrom(position) {
  state.lastNote = '';
  showSize(position);
  state.root = newNode(position, null, null);
  state.history = [state.root];
  state.cursor = 0;
  moved();
}

/** What a new position on the board leaves behind: the line shown, the hint, the last error and word. */
function moved() {
  state.preview = 0;
  state.hint = false;
  state.error = null;
  state.again = null;
  $('feedback').textContent = '';
  $('feedback').className = '';
}

/** Opens a position given as text (the address, the position field): analysed quickly first, so that a bad one is explained. */
async function openPosition(text, { fallback = true, another = false } = {}) {
  state.loading = { key: 'open', started: performance.now(), what: 'Opening the position' };
  state.abort = new AbortController();
  render();
  try {
    const answer = await quick(text, state.rules, state.abort.signal);
    startFrom(answer.position);
    state.pushAddress = another;
    return true;
  } catch (e) {
    state.loading = null;
    const why = 'The position was not opened: ' + (e.message === STOPPED ? 'stopped (Escape)' : e.message);
    if (fallback) {
      await newGame($('houses').value, $('seeds').value);
      state.error = why;
    } else {
      $('feedback').textContent = why;
      $('feedback').className = 'blunder';
    }
    return false;
  } finally {
    state.loading = null;
    render();
  }
}

// ---- The game as a tree ----

/** `node` and its main line after it. */
function lineFrom(node) {
  const line = [];
  for (let n = node; n; n = n.children[0]) line.push(n);
  return line;
}

/** The nodes from the root to `node`. */
function pathTo(node) {
  const path = [];
  for (let n = node; n; n = n.parent) path.unshift(n);
  return path;
}

/** Shows `node`: the line through it (on along its own main line), the board at it. */
function showNode(node) {
  const path = pathTo(node);
  state.history = path.concat(lineFrom(node).slice(1));
  state.cursor = path.length - 1;
}

/** The child of `node` each node of the line shown is: 0 for the main line, k for its k-th variation. */
function choicesOf(history) {
  return history.slice(1).map((n) => n.parent.children.indexOf(n));
}

/** The line that `choices` pick from the root (then on along the main line), or null if the tree has no such line. */
function lineOf(choices) {
  let n = state.root;
  for (const k of choices) {
    n = n.children[k];
    if (!n) return null;
  }
  return pathTo(n).concat(lineFrom(n).slice(1));
}

/**
 * Plays the move to `position` (house `house` of the side to move, with
 * `move`'s values) from the board's node: the move already there is gone
 * to (the line shown kept when it is the next one), otherwise it is a new
 * variation, the main line staying the main line (a move from a node with
 * no move after it goes on the line).
 */
function advance(house, position, move) {
  const here = current();
  const next = state.history[state.cursor + 1];
  if (next && next.move.house === house && next.position === position) {
    state.cursor += 1;
    return next;
  }
  let child = here.children.find((c) => c.move.house === house && c.position === position);
  if (!child) {
    child = newNode(position, move, here);
    here.children.push(child);
  }
  showNode(child);
  return child;
}

/** The node where the variation holding `node` leaves the main line's branch it grew from: the first of its line that is not a main move. */
function variationStart(node) {
  for (let n = node; n && n.parent; n = n.parent) if (n.parent.children[0] !== n) return n;
  return null;
}

/** Makes the variation that holds the board's node the main line where it branches off (again: a level up). */
function promote() {
  const start = variationStart(current());
  if (!start) return;
  const siblings = start.parent.children;
  siblings.splice(siblings.indexOf(start), 1);
  siblings.unshift(start);
  state.pushAddress = true;
  render();
}

/** Deletes the board's node and every move after it (main line or variation); the board goes to the position before. */
function deleteFromHere() {
  const node = current();
  if (!node.parent) return;
  const parent = node.parent;
  parent.children.splice(parent.children.indexOf(node), 1);
  state.lastNote = '';
  showNode(parent);
  moved();
  state.pushAddress = true;
  render();
}

// ---- Records: the address's form and the text form ----

/**
 * The moves of a game as the address writes them: the main line, moves
 * such as S3 apart by dots, each followed by its variations in
 * parentheses (other moves from the position it led to), those of the
 * first position before them all: `(S1.N2)S3(S2).N1`.
 */
function movesText(root) {
  const variations = (n) => n.children.slice(1).map((c) => '(' + chainText(c) + ')').join('');
  const chainText = (first) => lineFrom(first).map((n) => n.move.side + n.move.house + variations(n)).join('.');
  return variations(root) + (root.children.length ? chainText(root.children[0]) : '');
}

/**
 * Reads `movesText`'s form into a tree of names, `{name, kids}`, the first
 * kid of each the main line: the root's name is null. Throws, naming
 * where, on anything else. Blanks are passed over.
 */
function parseMoves(written) {
  const text = written.replace(/\s+/g, '');
  let i = 0;
  const fail = (what) => {
    throw new Error(`${what} at character ${i + 1}`);
  };
  // The first moves of the variations at i.
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
      const same = text.slice(from, i);
      if (!seen.has(same)) out.push(variation);
      seen.add(same);
    }
    return out;
  };
  // The first node of the line at i.
  const line = () => {
    const nodes = [];
    while (i < text.length && text[i] !== ')') {
      if (nodes.length) {
        if (text[i] !== '.') fail('no dot between two moves');
        i += 1;
      }
      const name = text.slice(i, i + 2);
      if (!/^[SN][1-8]$/.test(name)) fail(`"${name}" is not a move (a side, S or N, and a house, 1 to 8)`);
      i += 2;
      nodes.push({ name, kids: [], variations: groups() });
    }
    if (!nodes.length) fail('an empty line');
    nodes.forEach((n, j) => {
      n.kids = (nodes[j + 1] ? [nodes[j + 1]] : []).concat(n.variations);
    });
    return nodes[0];
  };
  const lead = groups();
  const main = i < text.length ? [line()] : [];
  if (i < text.length) fail('a parenthesis not opened');
  return { name: null, kids: main.concat(lead) };
}

/**
 * The game played from `start` (a position in either text form) by the
 * moves of `names` (a tree of `parseMoves`): each position read from a
 * quick analysis of the one before. `tolerant`: a move that is not legal
 * there is left out with what follows it, and named in `cut` (a record
 * replayed under other rules); otherwise it throws.
 */
async function replayTree(start, names, rules, tolerant, signal) {
  const first = await quick(start, rules, signal);
  const root = newNode(first.position, null, null);
  const cut = [];
  const grow = async (node, answer, kids) => {
    for (const k of kids) {
      const side = k.name[0];
      const house = Number(k.name.slice(1));
      const m = answer.to_move === side && answer.moves.find((x) => x.house === house);
      if (!m) {
        if (!tolerant) throw new Error(`${k.name} is not a move of ${answer.position}`);
        cut.push(k.name);
        continue;
      }
      const child = newNode(m.position, { side, house, value: null, best: null, unknown: true }, node);
      node.children.push(child);
      if (k.kids.length) await grow(child, await quick(m.position, rules, signal), k.kids);
    }
  };
  await grow(root, first, names.kids);
  return { root, cut };
}

/**
 * Replays a game of a permalink (or a record imported): its first
 * position, then each move and each variation. The board shows the node
 * of `at` along the line `choices` picks (the main line if none). If the
 * moves do not lead to `position`, the position alone is opened, and the
 * page says why.
 */
async function restoreGame(game, position, another = false) {
  state.loading = { key: 'restore', started: performance.now(), what: 'Restoring the game' };
  state.abort = new AbortController();
  render();
  let problem = null;
  try {
    const { root } = await replayTree(game.start, game.names, state.rules, false, state.abort.signal);
    state.root = root;
    const line = lineOf(game.choices || []) || lineFrom(root);
    const at = Math.max(0, Math.min(game.at ?? line.length - 1, line.length - 1));
    // The position of the address, if it gives one, as the server writes it (it may be given in the side form).
    if (position && line[at].position !== position && line[at].position !== (await quick(position)).position) {
      throw new Error(`the moves lead to ${line[at].position}, not to the position of the address`);
    }
    state.history = line;
    state.cursor = at;
    state.lastNote = '';
    showSize(root.position);
    moved();
    state.pushAddress = another;
  } catch (e) {
    problem = 'The game record was not restored: ' + (e.message === STOPPED ? 'stopped (Escape)' : e.message) + '.';
  } finally {
    state.loading = null;
  }
  if (problem) {
    // The setup shows the game the record was of, where its start is a ring (New game then starts it).
    if (/^[0-9,]+ [SN]$/.test(game.start.trim())) showSize(game.start.trim());
    if (position) await openPosition(position);
    else if (!state.root) await newGame($('houses').value, $('seeds').value);
    $('feedback').textContent = problem;
    $('feedback').className = 'blunder';
    render();
  } else {
    render();
  }
  return !problem;
}

/**
 * The record in its text form (docs/api.md, "A game record"): a line a
 * field, `start:` the first position, `rules:` the rules, `moves:` the
 * game in the address's form, `at:` the move the board shows, and for
 * people a `#` line with each move's mark and loss.
 */
function recordText() {
  const lines = ['# Kalah game record (kalah serve); lines with # are notes'];
  lines.push('start: ' + state.root.position);
  lines.push('rules: ' + RULES.map((r) => r + '=' + state.rules[r]).join(' '));
  lines.push('moves: ' + movesText(state.root));
  const choices = lineChoices();
  if (choices) lines.push('line: ' + choices);
  lines.push('at: ' + state.cursor);
  const notes = lineFrom(state.root)
    .slice(1)
    .map((n) => {
      const lost = lostBy(n.move);
      return n.move.side + n.move.house + (lost > 0 ? grade(n.move) + ' -' + lost : '');
    });
  if (notes.length) lines.push('# ' + notes.join(' '));
  return lines.join('\n') + '\n';
}

/** Reads `recordText`'s form: `{start, rules, names, choices, at}`, or throws with what is wrong. */
function parseRecord(text) {
  const fields = {};
  for (const [k, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-z]+):\s*(.*)$/.exec(line);
    if (!m) throw new Error(`line ${k + 1} is not "field: value" ("${line.slice(0, 30)}")`);
    if (!['start', 'rules', 'moves', 'line', 'at'].includes(m[1])) throw new Error(`line ${k + 1}: "${m[1]}" is not a field of a record (start, rules, moves, line, at)`);
    fields[m[1]] = m[2].trim();
  }
  if (!fields.start) throw new Error('no "start:" line (the position the moves are played from)');
  const rules = { ...DEFAULT_RULES };
  for (const pair of (fields.rules || '').split(/\s+/).filter(Boolean)) {
    const [r, v] = pair.split('=');
    const allowed = RULES.includes(r) ? [...$(r).options].map((o) => o.value) : null;
    if (!allowed) throw new Error(`"${pair}" in rules: is not a rule (${RULES.join(', ')})`);
    if (!allowed.includes(v)) throw new Error(`"${pair}" in rules: ${r} is one of ${allowed.join(', ')}`);
    rules[r] = v;
  }
  const names = fields.moves ? parseMoves(fields.moves) : { name: null, kids: [] };
  const choices = fields.line ? readChoices(fields.line) : [];
  if (choices === null) throw new Error(`"line: ${fields.line}" is not a list of variations such as 0.0.1`);
  const at = fields.at === undefined ? undefined : Number(fields.at);
  if (at !== undefined && !(Number.isInteger(at) && at >= 0)) throw new Error(`"at: ${fields.at}" is not a move of the game (0, 1, 2, ...)`);
  return { start: fields.start, rules, names, choices, at };
}

/** The choices of the line shown as the address writes them (`0.0.1`: the main line but the second move from the third position), or '' for the main line. */
function lineChoices() {
  const choices = choicesOf(state.history);
  const last = choices.findLastIndex((k) => k > 0);
  return last < 0 ? '' : choices.slice(0, last + 1).join('.');
}

/** `lineChoices`' form read back, or null. */
function readChoices(text) {
  if (!/^\d{1,2}(\.\d{1,2})*$/.test(text)) return null;
  return text.split('.').map(Number);
}

// ---- The values of the record ----

/**
 * Every move of the game, its main line first, then its variations: the
 * nodes after the root, each with its parent the position it was played from.
 */
function allMoves() {
  if (!state.root) return [];
  const main = lineFrom(state.root).slice(1);
  const out = [...main];
  const walk = (n) => {
    for (const c of n.children) {
      if (!main.includes(c)) out.push(c);
      walk(c);
    }
  };
  walk(state.root);
  return out;
}

/** The values of moves whose position before was analysed after they were played (a restored record, its variations too). */
function valuesOfRestoredMoves() {
  for (const node of allMoves()) {
    if (!node.move.unknown) continue;
    const before = answerOf(node.parent);
    if (!before) continue;
    const m = before.moves.find((x) => x.house === node.move.house);
    const best = before.moves[0];
    const exactOrNull = (x) => (x && x.value !== undefined ? x.value : null);
    Object.assign(node.move, { value: exactOrNull(m), lower: m && m.lower, upper: m && m.upper, best: exactOrNull(best), bestHouse: best.house, unknown: before.asked === 'quick' && !allExact(before) });
  }
}

/**
 * A game restored, replayed or imported knows its positions but not their
 * values: while nothing else is asked, the positions its moves were
 * played from are analysed one at a time, with a short time limit and
 * never by the background search, the record's marks and the chart
 * filling in as they come.
 */
function fillRecord() {
  if (state.loading || state.filling || !state.root) return;
  const node = allMoves().find((n) => n.move.unknown && (!answerOf(n.parent) || answerOf(n.parent).asked === 'quick') && !n.parent.tried);
  if (!node) return;
  const parent = node.parent;
  parent.tried = true; // asked once: a failure is not asked again
  const rules = { ...state.rules };
  state.filling = api('/api/v1/analysis', { position: parent.position, time_limit: SHORT_TIME }, undefined, rules)
    .then((answer) => {
      if (!allExact(answer)) answer.asked = 'short';
      const key = keyOf(answer.position, rules);
      const had = answers.get(key);
      if (!had || had.asked === 'quick') answers.set(key, answer);
    })
    .catch(() => {})
    .finally(() => {
      state.filling = null;
      render();
    });
}

/** What a move gave away (its mover's best value less its own), null if either is not proven. */
function lostBy(move) {
  return move && move.value !== null && move.value !== undefined && move.best !== null && move.best !== undefined ? move.best - move.value : null;
}

/**
 * A move's mark by what it gave away: `??` for a move that throws away a
 * win or a draw, or 10 or more; `?` for 4 or more; `?!` for less; none
 * for a move that keeps the value (the rules page says so).
 */
function grade(move) {
  const lost = lostBy(move);
  if (!(lost > 0)) return '';
  const outcome = (v) => Math.sign(v);
  if (outcome(move.value) < outcome(move.best) || lost >= 10) return '??';
  if (lost >= 4) return '?';
  return '?!';
}

/** A fill for the size of a loss: pale for a small one, deeper as it grows (dark text on it at a contrast of at least 4.5:1). */
function lossTone(lost) {
  const depth = Math.min(lost, 20);
  return `hsl(2 80% ${93 - depth * 1.25}%)`;
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
  const m = knownMoves(entry, answer).find((x) => x.house === house);
  if (!m) return;
  const side = answer.to_move;
  const best = bestOf(knownMoves(entry, answer));
  const move = { side, house, value: m.value, lower: m.lower, upper: m.upper, best: best.value, bestHouse: best.house };
  advance(house, m.position, move);
  moved();
  say(move, hinted);
  // Against the perfect player, Back steps over its answer to the player's own move.
  state.pushAddress = state.mode === 'explore' || move.side === state.mode;
  render();
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
  else text = `${name}${grade(move)} gives away ${lost}: for ${NAMES[move.side]}, ${move.side}${move.bestHouse} was worth ${signed(move.best)}, ${name} is worth ${signed(move.value)}.`;
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
  if (!answer || !answer.moves.length || humanToMove(entry.position) || (answer.asked && !allExact(answer))) return;
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

/** Goes to `node`, anywhere in the tree (a move of the record clicked). */
function goToNode(node) {
  state.lastNote = '';
  showNode(node);
  moved();
  render();
}

// ---- Drawing the board ----

const P = 84; // house pitch
const R = 31; // house radius
const STORE_W = 62;
const MARGIN = 12;
/** A narrow screen draws the board upright: the top side's store at the top, houses in two columns, tappable. */
const UPRIGHT = window.matchMedia('(max-width: 560px)');

/**
 * Where everything of a board of `h` houses a side goes, `bottom` the side
 * nearest the viewer (South, or North on a board turned round): across a
 * wide screen (the top side's store on the left, the bottom side's row
 * below), upright on a narrow one (the same picture turned a quarter, so
 * that the sowing goes round the same way). A house: its centre, its
 * label and the centre of its value badge; a store: its box, its count and
 * its label.
 */
function layout(h, upright, bottom) {
  if (!upright) {
    const width = 2 * MARGIN + 2 * STORE_W + 24 + h * P;
    const column = (i) => MARGIN + STORE_W + 12 + P / 2 + i * P;
    return {
      width,
      height: 276,
      r: R,
      store: (side) => {
        const x = side !== bottom ? MARGIN : width - MARGIN - STORE_W;
        return { x, y: 50, w: STORE_W, h: 176, count: [x + STORE_W / 2, 148], label: [x + STORE_W / 2, side !== bottom ? 40 : 250] };
      },
      house: (side, house) => {
        const cx = column(side === bottom ? house - 1 : h - house);
        return side === bottom ? { cx, cy: 184, label: [cx, 266], badge: [cx, 222] } : { cx, cy: 92, label: [cx, 16], badge: [cx, 40] };
      },
      direction: { x: width / 2, y: 143, turn: 0 },
    };
  }
  const width = 360;
  const pitch = 72;
  const top = 80;
  const row = (i) => top + pitch / 2 + i * pitch;
  const low = top + h * pitch + 8;
  return {
    width,
    height: low + 66,
    r: 29,
    store: (side) => {
      const y = side !== bottom ? 10 : low;
      // (Its label well inside the board's rounded corner.)
      return { x: 96, y, w: 168, h: 56, count: [180, y + 36], label: [side !== bottom ? 308 : 52, y + 33] };
    },
    house: (side, house) => {
      const [cx, cy, outer] = side === bottom ? [130, row(house - 1), 40] : [230, row(h - house), 320];
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
function lastMove(node) {
  if (!node || !node.move || !node.parent) return null;
  const before = parseRing(node.parent.position);
  const after = parseRing(node.position);
  const cells = (p) => [...p.south, p.southStore, ...p.north, p.northStore];
  const [a, b] = [cells(before), cells(after)];
  if (a.length !== b.length) return null;
  const n = a.length;
  const h = before.h;
  const from = ringIndex(h, node.move.side, node.move.house);
  const step = state.rules.sowing === 'cw' ? -1 : 1;
  const sown = new Map();
  if (state.rules.relay === 'on') {
    a.forEach((count, k) => {
      if (count !== b[k]) sown.set(k, (((k - from) * step) % n + n) % n);
    });
  } else {
    const skip = node.move.side === 'S' ? ringIndex(h, 'N', 'store') : ringIndex(h, 'S', 'store');
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

/** The houses a player may play, in the order the arrow keys go through them (left to right, or down an upright board). */
function housesInOrder(svg) {
  const houses = [...svg.querySelectorAll('.house.legal')];
  const at = (g) => g.querySelector('circle');
  return houses.sort((x, y) => {
    const [a, b] = [at(x), at(y)];
    return Number(a.getAttribute('cx')) - Number(b.getAttribute('cx')) || Number(a.getAttribute('cy')) - Number(b.getAttribute('cy'));
  });
}

function drawBoard(node, position, answer, interactive, last, animate) {
  const p = parseRing(position);
  const svg = $('board');
  const upright = UPRIGHT.matches;
  const at = layout(p.h, upright, state.view);
  svg.setAttribute('viewBox', `0 0 ${at.width} ${at.height}`);
  svg.classList.toggle('upright', upright);
  svg.replaceChildren();
  svg.append(el('rect', { x: 2, y: 2, width: at.width - 4, height: at.height - 4, rx: 26, class: 'wood' }));
  const moves = new Map((answer ? knownMoves(node, answer) : []).map((m) => [m.house, m]));
  const showValues = answer && (state.mode === 'explore' || state.hint);
  const best = answer && answer.moves.length ? bestOf(knownMoves(node, answer)) : null;
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
  const hidden = (e) => {
    e.setAttribute('aria-hidden', 'true');
    return e;
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
  // Which way seeds go round: the bottom row left to right and the top row
  // right to left counter-clockwise, the other way clockwise (a board
  // turned round turns with its sowing).
  const cw = state.rules.sowing === 'cw';
  const d = at.direction;
  const words = p.h < 3 && d.turn === 0 && upright ? (cw ? '↻' : '↺') : cw ? '↻ sowing clockwise' : '↺ sowing counter-clockwise';
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
      // The ring the keyboard's focus draws: another colour and shape than the best move's mark.
      g.append(el('circle', { cx: spot.cx, cy: spot.cy, r: at.r + 6, class: 'focus-ring' }));
      const written = hidden(el('g', { class: 'written', 'data-house': name }));
      written.append(el('text', { x: spot.cx, y: spot.cy + 8, class: 'count' }, seeds));
      written.append(el('text', { x: spot.label[0], y: spot.label[1], class: 'label' + (p.side === side ? ' mover' : '') }, name));
      mark(g, ringIndex(p.h, side, house));
      if (last && ringIndex(p.h, side, house) === last.played) g.setAttribute('aria-label', said + ', the last move');
      const shown = m && seenBy(state.view, p.side, m);
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
          g.setAttribute('tabindex', '-1');
          g.setAttribute('aria-label', said + (showValues ? `, value for ${NAMES[state.view]} ${valueText(shown)}` : '') + ': play it');
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
          const text = valueText(shown);
          const long = text.length > 4;
          const w = Math.max(60, Math.round(text.length * (long ? 7.8 : 9.5) + 12));
          const badge = el('g', { class: 'badge ' + outcomeClass(shown) + (long ? ' long' : ''), 'data-house': name, 'data-value': text });
          badge.append(el('rect', { x: bx - w / 2, y: by - 14, width: w, height: 24, rx: 12, fill: tone(shown) }));
          badge.append(el('text', { x: bx, y: by + 3 }, text));
          if (best && best.house === m.house && best.value !== null) {
            badge.classList.add('best');
            // The best move's mark: a star beside its badge, not a ring (the keyboard's focus is a ring).
            badge.append(el('text', { x: bx + w / 2 + 9, y: by + 4, class: 'star' }, '★'));
          }
          written.append(badge);
        }
      }
      svg.append(g, written);
    }
  }
  // One house in the order of Tab (the last focused, else the best, else the first); the arrows go between them.
  const order = housesInOrder(svg);
  if (order.length) {
    const keep = order.find((g) => g.dataset.house === state.focusHouse) || order.find((g) => best && g.dataset.house === p.side + best.house) || order[0];
    keep.setAttribute('tabindex', '0');
  }
}

/** A best move of `moves`: the highest proven lower bound, then the highest upper bound. */
function bestOf(moves) {
  return moves.reduce((a, b) => ((b.value ?? b.lower) > (a.value ?? a.lower) || ((b.value ?? b.lower) === (a.value ?? a.lower) && (b.value ?? b.upper) > (a.value ?? a.upper)) ? b : a));
}

// ---- The panels ----

function setStatus(text, cls) {
  $('status').textContent = text;
  $('status').className = cls || '';
}

function seconds() {
  return state.loading ? ((performance.now() - state.loading.started) / 1000).toFixed(1) : '0.0';
}

function renderStatus(node, answer, shown) {
  if (state.error) return setStatus(state.error, 'error');
  const p = parseRing(shown);
  if (state.preview) {
    return setStatus(`Line of best play, step ${state.preview} of ${answer.pv.length}: ${NAMES[p.side]} to move. ◀ and ▶ step along it.`, 'preview');
  }
  if (state.loading && state.loading.key !== keyOf(node.position, state.rules) && state.loading.what !== 'analysis') {
    return setStatus(`${state.loading.what}… ${seconds()} s (Escape stops it)`, 'loading');
  }
  const b = knownBounds(node);
  const analysing = state.loading && state.loading.key === keyOf(node.position, state.rules);
  if (!answer || (analysing && !allExact(answer))) {
    const known = b && b.lower === b.upper ? ` Its value is known: ${verdictFor(p.side, b.lower)}.` : '';
    return setStatus(`${NAMES[p.side]} to move.${known} Analysing… ${seconds()} s (Escape stops it)`, 'loading');
  }
  if (!answer.moves.length) return setStatus('Game over: ' + answer.verdict + '.', 'over');
  // One range on the page: what the answer, the background search and the move played prove together.
  const { lower, upper } = b;
  const exact = lower === upper;
  const proven = exact ? `: ${verdictFor(answer.to_move, lower)}${allExact(answer) ? '' : " (each move's value not yet proven)"}` : `: ${boundsInWords(answer.to_move, lower, upper)}`;
  if (state.mode !== 'explore') {
    const turn = humanToMove(shown) ? 'Your move' : 'The perfect player is thinking';
    return setStatus(`${turn} (${NAMES[answer.to_move]})${state.hint ? proven : ''}.`, '');
  }
  setStatus(`${NAMES[answer.to_move]} to move${proven}.`, allExact(answer) ? '' : 'bounds');
}

function renderMoves(node, answer) {
  const list = $('moves');
  list.replaceChildren();
  $('moves-view').textContent = `for ${NAMES[state.view]}, + ${NAMES[state.view]} ahead`;
  const hidden = valuesHidden();
  if (!answer || hidden) {
    if (answer && hidden && humanToMove(node.position)) list.append(Object.assign(document.createElement('li'), { textContent: 'Values hidden: press Hint to see them.', className: 'explain' }));
    return;
  }
  for (const m of knownMoves(node, answer)) {
    const shown = seenBy(state.view, answer.to_move, m);
    const li = document.createElement('li');
    li.className = outcomeClass(m);
    li.dataset.house = answer.to_move + m.house;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = answer.to_move + m.house;
    button.disabled = !humanToMove(node.position);
    button.addEventListener('click', () => play(m.house));
    const value = document.createElement('span');
    value.className = 'value';
    value.style.background = tone(shown);
    value.textContent = valueText(shown);
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

/** The value of `node`'s position for the side values are shown for, or bounds on it; null when not known. */
function viewValue(node) {
  const b = knownBounds(node);
  if (!b) return null;
  const v = seenBy(state.view, parseRing(node.position).side, b);
  return { lo: v.lower, hi: v.upper };
}

/** The turns played up to history entry `index`, and the side that made the last move (null at the start). */
function turnsTo(index) {
  let turns = 0;
  let side = null;
  for (const node of state.history.slice(1, index + 1)) {
    if (node.move.side !== side) turns += 1;
    side = node.move.side;
  }
  return [turns, side];
}

/**
 * The game played, turn by turn, from the tree: the main line, and after
 * a move the variations from the position it led to, in brackets (with
 * the variations inside them); beside each move its mark and what it gave
 * away, on a fill as deep as the loss. Each move is a button that shows
 * its position.
 */
function renderRecord() {
  const record = $('record');
  record.replaceChildren();
  const span = (className, textContent) => Object.assign(document.createElement('span'), { className, textContent });
  const onLine = new Set(state.history);
  const hidden = valuesHidden();
  /**
   * A move's button after turn `turn` of `side`: the turn and side after
   * it. `first`: the first move of a variation, which says its turn even
   * when it goes on with the same side's (`3…`), after the variation's
   * opening parenthesis. The parenthesis, the turn, the button and its
   * loss are one group, which a line never breaks.
   */
  const ply = (into, node, turn, side, first) => {
    const group = span('together', first ? '(' : '');
    if (node.move.side !== side) {
      turn += 1;
      side = node.move.side;
      group.append(span('turn', turn + '.'));
    } else if (first) {
      group.append(span('turn', turn + '…'));
    }
    const lost = hidden ? null : lostBy(node.move);
    const mark = lost > 0 ? grade(node.move) : '';
    const b = Object.assign(document.createElement('button'), { type: 'button', textContent: node.move.side + node.move.house + mark });
    b.dataset.move = node.move.side + node.move.house;
    const here = node === current();
    const i = state.history.indexOf(node);
    b.className = 'ply' + (here ? ' now' : '') + (onLine.has(node) && i > state.cursor ? ' undone' : '') + (lost > 0 ? ' lost' : '');
    if (here) b.setAttribute('aria-current', 'step');
    if (lost > 0) b.style.background = lossTone(lost);
    b.title = lost > 0 ? `gave away ${lost}` : lost === 0 ? 'kept the value' : '';
    b.addEventListener('click', () => goToNode(node));
    group.append(b);
    if (lost > 0) group.append(span('loss', '−' + lost));
    into.append(group);
    return [turn, side];
  };
  const chain = (into, first, turn, side, inVariation) => {
    let leading = inVariation;
    for (let n = first; n; n = n.children[0]) {
      [turn, side] = ply(into, n, turn, side, leading);
      leading = false;
      variations(into, n, turn, side);
    }
  };
  const variations = (into, node, turn, side) => {
    for (const v of node.children.slice(1)) {
      const line = span('variation', '');
      chain(line, v, turn, side, true);
      // The closing parenthesis with the last move shown (a line never begins with it).
      [...line.querySelectorAll('.together')].at(-1).append(')');
      into.append(line);
    }
  };
  const start = Object.assign(document.createElement('button'), { type: 'button', textContent: 'start', className: state.cursor === 0 ? 'ply now' : 'ply' });
  start.dataset.move = 'start';
  start.addEventListener('click', () => goToNode(state.root));
  record.append(start);
  variations(record, state.root, 0, null);
  if (state.root.children.length) chain(record, state.root.children[0], 0, null, false);
  const inVariation = Boolean(variationStart(current()));
  $('promote').disabled = !inVariation;
  $('delete').disabled = state.cursor === 0;
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
 * The value after each move of the line shown, for the side values are
 * shown for, drawn in the page's own pixels (so that its text is as large
 * on a phone as on a desktop): moves along the bottom, the value up the
 * side, bounds as bars, the moves that gave value away marked in a fill as
 * deep as the loss. The chart is a slider for the keyboard: the arrows
 * step through the game.
 */
function renderChart() {
  const svg = $('chart');
  const who = NAMES[state.view];
  const points = state.history.map((node, i) => ({ i, v: viewValue(node), move: node.move }));
  const known = points.filter((p) => p.v);
  const top = Math.max(4, ...known.map((p) => Math.max(Math.abs(p.v.lo), Math.abs(p.v.hi))));
  const width = Math.max(280, Math.round(svg.clientWidth || 600));
  const height = width < 500 ? 200 : 220;
  // The first point stands clear of the value axis's labels.
  const [left, right, above, below, inset] = [44, 16, 30, 40, 12];
  const n = Math.max(points.length - 1, 1);
  const x = (i) => left + inset + ((width - left - right - inset) * i) / n;
  const y = (v) => above + ((height - above - below) * (top - v)) / (2 * top);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.replaceChildren();
  svg.setAttribute('aria-label', `${who}'s value after each move (arrows step through the game)`);
  // The value axis: round steps either side of 0, the side shown ahead above.
  for (const v of ticks(top, 2)) {
    for (const t of v ? [v, -v] : [0]) {
      svg.append(el('line', { x1: left, x2: width - right, y1: y(t), y2: y(t), class: t ? 'grid' : 'axis' }));
      svg.append(el('text', { x: left - 8, y: y(t) + 4, class: 'tick end' }, signed(t)));
    }
  }
  svg.append(el('text', { x: left, y: 14, class: 'tick' }, `${who} ahead ↑`));
  // The move axis: moves (plies) from the start.
  const moveTicks = ticks(n, Math.max(2, Math.floor((width - left - right) / 56)));
  svg.append(el('line', { x1: left, x2: width - right, y1: height - below, y2: height - below, class: 'frame' }));
  for (const i of moveTicks.filter((i) => i <= n)) {
    svg.append(el('line', { x1: x(i), x2: x(i), y1: height - below, y2: height - below + 5, class: 'frame' }));
    svg.append(el('text', { x: x(i), y: height - below + 18, class: 'tick middle' }, String(i)));
  }
  svg.append(el('text', { x: width - right, y: height - 4, class: 'tick end' }, `moves →  (${NAMES[other(state.view)]} ahead ↓)`));
  const here = points[state.cursor];
  svg.setAttribute('aria-valuemax', String(points.length - 1));
  svg.setAttribute('aria-valuenow', String(state.cursor));
  if (valuesHidden()) {
    svg.setAttribute('aria-valuetext', `after ${state.cursor} move${state.cursor === 1 ? '' : 's'}: values hidden`);
    svg.append(el('text', { x: (left + width - right) / 2, y: y(0) - 8, class: 'tick middle' }, 'Values hidden until the game ends, or Hint'));
    return;
  }
  const said = here && here.v ? who + ' ' + (here.v.lo === here.v.hi ? signed(here.v.lo) : signed(here.v.lo) + ' to ' + signed(here.v.hi)) : 'not analysed yet';
  const move = here && here.move ? ` (${here.move.side}${here.move.house})` : ' (the start)';
  svg.setAttribute('aria-valuetext', `after ${state.cursor} move${state.cursor === 1 ? '' : 's'}${move}: ${said}`);
  const exact = known.filter((p) => p.v.lo === p.v.hi);
  if (exact.length > 1) svg.append(el('polyline', { points: exact.map((p) => `${x(p.i)},${y(p.v.lo)}`).join(' '), class: 'line' }));
  for (const p of known) {
    if (p.v.lo !== p.v.hi) svg.append(el('line', { x1: x(p.i), x2: x(p.i), y1: y(p.v.lo), y2: y(p.v.hi), class: 'band' }));
    const lost = lostBy(p.move);
    const [cx, cy] = [x(p.i), y((p.v.lo + p.v.hi) / 2)];
    const dot = el('circle', { cx, cy, r: p.i === state.cursor ? 6 : 4, class: 'dot' + (lost > 0 ? ' turned' : '') + (p.i > state.cursor ? ' undone' : '') });
    if (lost > 0) dot.style.fill = `hsl(2 75% ${50 - Math.min(lost, 20)}%)`;
    // A finger's target around the dot, drawn clear.
    const target = el('circle', { cx, cy, r: 14, class: 'target' });
    target.addEventListener('click', () => goTo(p.i));
    svg.append(target);
    const value = p.v.lo === p.v.hi ? signed(p.v.lo) : signed(p.v.lo) + '..' + signed(p.v.hi);
    target.append(el('title', {}, (p.move ? p.move.side + p.move.house + grade(p.move) + ': ' : 'start: ') + who + ' ' + value + (lost > 0 ? `, gave away ${lost}` : '')));
    svg.append(dot);
    // The name of a move that gave value away, above its point, or below where the top is near.
    if (lost > 0) svg.append(el('text', { x: cx, y: cy - 9 < above - 4 ? cy + 20 : cy - 9, class: 'tick turned' }, p.move.side + p.move.house + grade(p.move)));
  }
}

function renderDetails(answer) {
  if (!answer) return ($('details').textContent = '');
  const db = answer.database;
  const from = { book: 'the opening book', game_over: 'the rules (the game is over)', database: 'a database probe', search: 'a search', retrograde: 'retrograde analysis', bounds: 'bounds proven in time', kept: 'an exact answer the server kept from an earlier search', proven: 'a result this project has proven and ships' }[answer.source] || answer.source;
  const rules = RULES.map((r) => r + '=' + answer.rules[r]).join(' ');
  let text = `Position ${answer.position} (${rules}): answered by ${from}`;
  if (db) text += ` over the ${db.max_seeds}-seed database ${db.path ? db.path : 'built in memory'}${db.kept ? ' (kept from an earlier request)' : ''}`;
  text += answer.source === 'kept' ? `, read in ${answer.seconds.toFixed(3)} s.` : `, ${answer.nodes.toLocaleString('en')} nodes in ${answer.seconds.toFixed(2)} s.`;
  $('details').textContent = text;
}

/** The word on the viewpoint, above the board. */
function renderView() {
  const who = NAMES[state.view];
  $('view-said').textContent = `Values for ${who} (the side at the bottom): + means ${who} ahead. The chart and the list say the same.`;
  $('flip').setAttribute('aria-pressed', String(state.view === 'N'));
}

/** The position field: the board's position, unless the player is typing in it. */
function renderPositionField() {
  const field = $('position-text');
  if (document.activeElement !== field && current()) field.value = current().position;
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
  if (state.root.children.length) {
    params.start = state.root.position;
    params.moves = movesText(state.root);
    const choices = lineChoices();
    if (choices) params.line = choices;
    if (state.cursor + 1 < state.history.length || choices) params.at = state.cursor;
  }
  if (state.mode !== 'explore') params.play = state.mode;
  if (state.view !== 'S' && state.mode !== 'N') params.view = state.view;
  const address = '?' + query(params);
  const entryState = { serial: 0, cursor: state.cursor, choices: choicesOf(state.history).slice(0, state.cursor) };
  if (address === location.search) return;
  if (state.pushAddress) {
    state.serial += 1;
    history.pushState({ ...entryState, serial: state.serial }, '', address);
  } else {
    history.replaceState({ ...entryState, serial: state.serial }, '', address);
  }
  state.pushAddress = false;
}

/**
 * Back or Forward: the move of the game that address was written for, if
 * the game still holds it. An entry that shows what the board shows
 * already (entries written as the game was undone and played on) is
 * passed over in the direction of travel, so that each Back shows another
 * position.
 */
function steppedInHistory(event) {
  const s = event.state;
  const position = new URLSearchParams(location.search).get('position');
  const sameRules = rulesOfAddress();
  const backwards = s && typeof s.serial === 'number' && s.serial < state.serial;
  if (s && typeof s.serial === 'number') state.serial = s.serial;
  // The board already shows it: another entry of the same position (or a jump within the page, such as the skip link's).
  if (current() && position === current().position && sameRules) {
    if (s && typeof s.serial === 'number' && s.serial > 0 && backwards) history.back();
    else if (s && typeof s.serial === 'number' && !backwards && s.serial > 0) history.forward();
    return;
  }
  if (sameRules && s && Array.isArray(s.choices)) {
    const line = lineOf(s.choices);
    if (line && line[s.cursor] && line[s.cursor].position === position) {
      state.lastNote = '';
      showNode(line[s.cursor]);
      moved();
      render();
      return;
    }
  }
  // Another game than the one on the board (before Start over, a new game,
  // other rules, or another line): the game the address holds, its rules,
  // record and all.
  const asked = readAddress();
  if (asked.game) restoreGame(asked.game, position);
  else if (position) openPosition(position);
  else newGame(asked.houses || 6, asked.seeds || 4);
}

/**
 * The game the address names. A rule, a size or a record it gets wrong is
 * said (in `problems`) and left at its default, before any search, so that
 * the page works with what was right.
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
  state.view = state.mode === 'N' ? 'N' : 'S';
  if (q.get('view') === 'S' || q.get('view') === 'N') state.view = q.get('view');
  else if (q.has('view')) problems.push(`${shown('view')} in the address is not a side to see the values of (S or N): South's are shown`);
  // The size of a new game: whole numbers in the setup's ranges.
  const size = (name, low, high, fallback) => {
    if (!q.has(name)) return null;
    const text = q.get(name).trim();
    if (/^\d{1,3}$/.test(text) && Number(text) >= low && Number(text) <= high) return Number(text);
    problems.push(`${shown(name)} in the address is not a number of ${name} (${low} to ${high}): ${fallback} is used`);
    return fallback;
  };
  const houses = size('houses', 1, 8, 6);
  const seeds = size('seeds', 1, 99, 4);
  let names = null;
  if (q.get('moves')) {
    try {
      names = parseMoves(q.get('moves'));
    } catch (e) {
      problems.push(`${shown('moves')} in the address is not a game record such as S3.N1(S2).S4 (${e.message}), so it was not restored`);
    }
    if (names && !q.get('start')) {
      problems.push(`${shown('moves')} in the address has no start= (the position the moves are played from), so it was not restored`);
      names = null;
    }
  }
  let choices = [];
  if (names && q.has('line')) {
    choices = readChoices(q.get('line'));
    if (!choices) {
      problems.push(`${shown('line')} in the address is not a line of the record (such as 0.0.1): the main line is shown`);
      choices = [];
    }
  }
  const at = q.has('at') ? Number(q.get('at')) : undefined;
  if (names && at !== undefined && !(Number.isInteger(at) && at >= 0)) {
    problems.push(`${shown('at')} in the address is not a move of the game (0, 1, 2, ...), so the record was not restored`);
    names = null;
  }
  const game = names ? { start: q.get('start'), names, choices, at } : null;
  return { position: q.get('position'), houses, seeds, game, problems };
}

/** Whether the page's rules are those the address names. */
function rulesOfAddress() {
  const q = new URLSearchParams(location.search);
  return RULES.every((r) => (q.get(r) || DEFAULT_RULES[r]) === state.rules[r]);
}

// ---- Other rules for the game on the board ----

/**
 * The rules changed: the same game, its moves replayed under the new rules
 * from its first position (its positions and values are other ones); a
 * move that is not legal under them is left out with what follows it, and
 * said. Back returns to the game under the rules before.
 */
async function replayUnderRules() {
  if (!state.root) return;
  const names = parseMoves(movesText(state.root) || '');
  const choices = choicesOf(state.history).slice(0, state.cursor);
  const cursor = state.cursor;
  state.loading = { key: 'replay', started: performance.now(), what: 'Playing the game again under these rules' };
  state.abort = new AbortController();
  render();
  try {
    const { root, cut } = await replayTree(state.root.position, names, state.rules, true, state.abort.signal);
    state.root = root;
    let line = lineOf(choices);
    let at = cursor;
    if (!line) {
      // The board's move was left out: as far along its line as the tree goes.
      let n = root;
      at = 0;
      for (const k of choices) {
        if (!n.children[k]) break;
        n = n.children[k];
        at += 1;
      }
      line = pathTo(n).concat(lineFrom(n).slice(1));
    }
    state.history = line;
    state.cursor = Math.min(at, line.length - 1);
    moved();
    if (cut.length) {
      $('feedback').textContent = `Under these rules ${cut.join(', ')} ${cut.length === 1 ? 'is' : 'are'} not legal where ${cut.length === 1 ? 'it was' : 'they were'} played: left out of the record, with the moves after.`;
      $('feedback').className = 'blunder';
    }
  } catch (e) {
    state.error = 'The game was not played again under these rules: ' + (e.message === STOPPED ? 'stopped (Escape)' : e.message);
    state.again = replayUnderRules;
  } finally {
    state.loading = null;
    state.pushAddress = true;
    render();
  }
}

// ---- The editor ----

/** Cells of the editor, for a board of `h` houses: their names in ring order. */
function cellNames(h) {
  const houses = (side) => Array.from({ length: h }, (_, i) => side + (i + 1));
  return [...houses('S'), 'S store', ...houses('N'), 'N store'];
}

/** The editor's board: a field for each cell, laid out as the board is (upright on a narrow screen, turned round with it). */
function drawEditor(p) {
  const board = $('editor-board');
  const before = Object.fromEntries([...board.querySelectorAll('input')].map((i) => [i.dataset.cell, i.value]));
  board.replaceChildren();
  const upright = UPRIGHT.matches;
  board.classList.toggle('upright', upright);
  board.style.setProperty('--houses', p.h);
  const bottom = state.view;
  const top = other(bottom);
  const place = (name) => {
    const side = name[0];
    if (name.endsWith('store')) {
      if (upright) return side === top ? ['1 / span 2', 1] : ['1 / span 2', p.h + 2];
      return side === top ? [1, '1 / span 2'] : [p.h + 2, '1 / span 2'];
    }
    const house = Number(name.slice(1));
    const i = side === bottom ? house - 1 : p.h - house;
    if (upright) return [side === bottom ? 1 : 2, i + 2];
    return [i + 2, side === bottom ? 2 : 1];
  };
  const value = (name) => {
    const ring = ringOf(p).split(' ')[0].split(',');
    return ring[cellNames(p.h).indexOf(name)];
  };
  for (const name of cellNames(p.h)) {
    const [column, row] = place(name);
    const label = document.createElement('label');
    label.style.gridColumn = column;
    label.style.gridRow = row;
    label.textContent = name;
    // Text, not a number field: what is typed is read as it was typed, and said if it is not a count.
    const i = Object.assign(document.createElement('input'), { type: 'text', inputMode: 'numeric', autocomplete: 'off', value: before[name] ?? value(name) ?? '0', name });
    i.dataset.cell = name;
    label.append(i);
    board.append(label);
  }
}

function openEditor() {
  const p = parseRing(current().position);
  $('editor-board').replaceChildren();
  $('editor-houses').value = p.h;
  drawEditor(p);
  $('editor-side').value = p.side;
  $('editor-error').textContent = '';
  $('editor').hidden = false;
  $('editor-houses').focus();
}

/** Houses changed in the editor: the cells of the new board, those kept that the old one had. */
function editorHouses() {
  const text = $('editor-houses').value.trim();
  const h = Number(text);
  if (!/^\d$/.test(text) || h < 1 || h > 8) {
    $('editor-error').textContent = `Houses: "${text}" is not a number of houses a side (1 to 8).`;
    return;
  }
  $('editor-error').textContent = '';
  const old = parseRing(current().position);
  const cell = (name) => {
    const i = $('editor-board').querySelector(`[data-cell="${name}"]`);
    return i ? i.value : null;
  };
  const fill = (side, k) => cell(side + k) ?? String((side === 'S' ? old.south : old.north)[k - 1] ?? 0);
  const p = {
    h,
    south: Array.from({ length: h }, (_, k) => fill('S', k + 1)),
    north: Array.from({ length: h }, (_, k) => fill('N', k + 1)),
    southStore: cell('S store') ?? old.southStore,
    northStore: cell('N store') ?? old.northStore,
    side: $('editor-side').value,
  };
  $('editor-board').replaceChildren();
  drawEditor(p);
}

function closeEditor() {
  $('editor').hidden = true;
  $('edit').focus();
}

async function applyEditor(event) {
  event.preventDefault();
  const h = Number($('editor-houses').value);
  const cell = (name) => {
    const i = $('editor-board').querySelector(`[data-cell="${name}"]`);
    return i ? i.value.trim() : '';
  };
  // Each cell a count of seeds, said of the cell, before the server is asked.
  const names = cellNames(h);
  const wrong = names.find((name) => !/^\d{1,10}$/.test(cell(name)) || (!name.endsWith('store') && Number(cell(name)) > 255));
  if (wrong) {
    const typed = cell(wrong);
    const most = wrong.endsWith('store') ? 'a whole number of seeds' : 'a whole number from 0 to 255';
    $('editor-error').textContent = `${wrong}: ${typed === '' ? 'nothing' : '"' + typed + '"'} is not a count of seeds (give ${most}).`;
    $('editor-board').querySelector(`[data-cell="${wrong}"]`).focus();
    return;
  }
  const ring = names.map(cell).join(',') + ' ' + $('editor-side').value;
  $('editor-error').textContent = 'Checking the position…';
  state.loading = { key: 'edit', started: performance.now(), what: 'Checking the edited position' };
  state.abort = new AbortController();
  try {
    const answer = await quick(ring, state.rules, state.abort.signal);
    startFrom(answer.position);
    state.pushAddress = true;
    $('editor').hidden = true;
  } catch (e) {
    $('editor-error').textContent = e.message === STOPPED ? 'Stopped (Escape): the position was not opened.' : 'Not a position to analyse: ' + e.message;
  } finally {
    state.loading = null;
    render();
  }
}

// ---- Bounds closing in the background ----

/** The question the background search of the board answers: its position and rules. */
const backgroundQuery = () => query({ position: current().position });

let backgroundTimer = null;
/** Counts the looks at the background search: only the latest one's answer is shown and followed. */
let backgroundLooks = 0;

/** Asks the server about the background search: `action` follow, leave, more or stop (a POST), or a look (GET). */
async function background(action, asked) {
  const path = action ? `/api/v1/background/${action}` : '/api/v1/background';
  const response = await fetch(path + '?' + asked, { method: action ? 'POST' : 'GET', headers: { 'X-Kalah-Viewer': VIEWER } }).catch(() => null);
  if (!response) return null;
  return response.json().catch(() => null);
}

/**
 * The background search follows the board: a position answered with
 * bounds only is followed (the server searches on, from where its search
 * was, one thread, while this page shows it), and leaving it hands the
 * search over to the next one followed. Shown once a second, its bounds
 * merged into the one range the status gives.
 */
function followBoard() {
  clearTimeout(backgroundTimer);
  const entry = current();
  const answer = answerOf(entry);
  const key = entry && keyOf(entry.position, state.rules);
  // (Not a position whose search this page stopped: until the board leaves it, or More time.)
  const wanted = entry && answer && answer.moves.length && !allExact(answer) && !state.preview && !answer.asked && state.stopped !== key ? key : null;
  if (state.stopped && state.stopped !== key) state.stopped = null;
  if (wanted !== state.followed) {
    const left = state.followed;
    state.followed = wanted;
    backgroundLooks += 1;
    if (!wanted) {
      $('background').hidden = true;
      // Left: the server's search goes to whatever this page follows next, or to no one.
      if (left) background('leave', '');
      return;
    }
    const asked = backgroundQuery();
    const look = backgroundLooks;
    background('follow', asked).then((told) => {
      if (look === backgroundLooks) showBackground(told, asked, look);
    });
    return;
  }
  if (wanted) lookAt();
}

/** A look at the background search followed (following it again: the page still shows it), then the next a second later. */
function lookAt() {
  clearTimeout(backgroundTimer);
  if (!state.followed) return;
  const asked = backgroundQuery();
  const looked = ++backgroundLooks;
  background('follow', asked).then((told) => {
    if (looked === backgroundLooks) showBackground(told, asked, looked);
  });
}

function showBackground(told, asked, looked) {
  const box = $('background');
  if (!told || !('state' in told) || !current() || backgroundQuery() !== asked) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const key = keyOf(current().position, state.rules);
  if (told.state === 'exact') {
    // The server now has the exact answer: asked again, it comes at once.
    answers.delete(key);
    state.closing = null;
    state.followed = null;
    box.hidden = true;
    render();
    return;
  }
  // The status gives the bounds proven so far, merged with the answer's.
  state.closing = { key, lower: told.lower ?? null, upper: told.upper ?? null };
  renderStatus(current(), answerOf(current()), current().position);
  renderChart();
  const nodes = told.nodes >= 1e6 ? (told.nodes / 1e6).toFixed(1) + ' M' : (told.nodes || 0).toLocaleString('en');
  const text = {
    null: 'Not searched further.',
    running: told.building !== null && told.building !== undefined ? `Building a database for the search in the background: ${Math.round(told.building * 100)}%…` : `Proving in the background: ${Math.round(told.seconds)} s, ${nodes} nodes; ${Math.round(told.seconds_left)} s left.`,
    out_of_time: `The background search has had its time (${Math.round(told.seconds)} s, ${nodes} nodes): More time goes on from what it proved.`,
    stopped: `The background search is stopped (${Math.round(told.seconds)} s, ${nodes} nodes): More time goes on from what it proved.`,
    paused: told.waiting
      ? `Waiting for the server's background search: it is busy with ${told.waiting} position${told.waiting === 1 ? '' : 's'} on other screens; this one goes on as soon as a place is free.`
      : `The background search is paused (${Math.round(told.seconds)} s): it goes on from what it proved while a board shows this position.`,
    failed: 'The background search failed.',
  }[String(told.state)];
  $('background-text').textContent = text;
  $('background-stop').hidden = told.state !== 'running';
  $('background-more').hidden = !told.more_allowed;
  $('background-more').textContent = told.state === null ? 'Search on' : 'More time';
  // Running, or waiting for a place: looked at again in a second (a stopped one is not followed).
  if ((told.state === 'running' || told.state === null || told.state === 'paused') && state.stopped !== key) {
    backgroundTimer = setTimeout(() => looked === backgroundLooks && lookAt(), 1000);
  }
}

/** Stop or More time, from the line under the status. */
async function backgroundAction(action) {
  if (!current()) return;
  const key = keyOf(current().position, state.rules);
  // Stopped: this page follows it no more until the board leaves it; More time follows it again.
  state.stopped = action === 'stop' ? key : null;
  if (action === 'more') state.followed = key;
  const asked = backgroundQuery();
  const looked = ++backgroundLooks;
  const told = await background(action, asked);
  if (looked === backgroundLooks) showBackground(told, asked, looked);
}

// ---- Putting it together ----

/** What has the keyboard's focus, to give it back after the page is drawn again: a house of the board, or an element by id. */
function focusNow() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  if (a.closest && a.closest('#board')) return { house: a.dataset.house };
  if (a.closest && a.closest('#record')) return { record: true };
  return a.id ? { id: a.id } : null;
}

function restoreFocus(was) {
  if (!was) return;
  if (was.house !== undefined) {
    const houses = housesInOrder($('board'));
    const same = houses.find((g) => g.dataset.house === was.house);
    (same || houses[0] || $('board-start')).focus();
    return;
  }
  if (was.record) {
    const now = $('record').querySelector('.ply.now');
    if (now) now.focus();
    return;
  }
  const e = $(was.id);
  if (e && !e.disabled && e.checkVisibility()) return;
  // A control disabled by what it did (Undo at the start, Redo at the end): its neighbour, else the board.
  const neighbour = { undo: 'redo', redo: 'undo' }[was.id];
  if (neighbour && !$(neighbour).disabled) $(neighbour).focus();
  else if (e && !e.disabled && !e.hidden) e.focus();
  else $('board-start').focus();
}

function render() {
  const was = focusNow();
  const entry = current();
  // Analyse again: after a stop, and after a failure (a server out of reach may be back).
  $('again').hidden = !state.error;
  clearInterval(ticker);
  renderTip();
  // With no game on the board, nothing to undo, step or copy.
  for (const id of ['undo', 'redo', 'restart', 'edit', 'copy-link', 'pv-back', 'pv-forward', 'pv-play', 'promote', 'delete', 'record-export']) $(id).disabled = !entry;
  if (!entry) {
    const said = state.error === STOPPED ? 'Stopped (Escape): no game yet. Analyse again, or choose a game under Houses and Seeds.' : state.error;
    const starting = () => setStatus(said || `${state.loading ? state.loading.what : 'Starting'}… ${seconds()} s (Escape stops it)`, state.error ? 'error' : 'loading');
    starting();
    if (state.loading) ticker = setInterval(starting, 200);
    return;
  }
  valuesOfRestoredMoves();
  const answer = answerOf(entry);
  if (state.preview && (!answer || state.preview > answer.pv.length)) state.preview = 0;
  const shown = state.preview ? answer.pv[state.preview - 1].position : entry.position;
  const last = state.preview ? null : lastMove(entry);
  const viewed = state.preview ? null : answer;
  drawBoard(entry, shown, viewed, !state.preview, last, last && state.animated !== entry);
  if (last) state.animated = entry;
  renderStatus(entry, answer, shown);
  renderView();
  $('line-steps').hidden = !state.preview;
  if (state.preview) $('line-forward').disabled = state.preview >= answer.pv.length;
  renderMoves(entry, answer);
  renderPV(answer);
  renderRecord();
  renderChart();
  renderDetails(answer);
  renderPositionField();
  $('undo').disabled = state.cursor === 0;
  $('restart').disabled = state.history.length < 2 && !state.root.children.length;
  $('redo').disabled = state.cursor + 1 >= state.history.length;
  $('hint').hidden = state.mode === 'explore';
  $('hint').disabled = !answer || !answer.moves.length || !humanToMove(entry.position) || state.hint;
  for (const r of RULES) $(r).value = state.rules[r];
  $('mode').value = state.mode;
  // (Not while a game is restored or replayed: the address holds the game asked for until the page has it.)
  if (!state.loading || state.loading.what === 'analysis') writeAddress();
  if (!state.error) analyseCurrent();
  if (state.loading) ticker = setInterval(() => current() && renderStatus(current(), answerOf(current()), current().position), 200);
  if (state.keepFocus) {
    const next = housesInOrder($('board'))[0];
    if (next) {
      next.focus();
      state.keepFocus = false;
    }
  } else {
    restoreFocus(was);
  }
  maybeComputerMoves();
  fillRecord();
  followBoard();
}

/**
 * The word on what this server has for the game on the board: while it
 * prepares its endgame databases (`/health`, `ready`), how far it is; on
 * Kalah(6,4) with no database for it, what would make it quick. Shown only
 * for the game it is about.
 */
let health = null;
function renderTip() {
  const tip = $('tip');
  const root = state.root && parseRing(state.root.position);
  const seeds = root ? [...root.south, ...root.north].reduce((a, b) => a + b, 0) + root.southStore + root.northStore : 0;
  const preparing = health && health.ready === false ? (health.preparing || []).filter((d) => !root || d.houses === root.h) : [];
  if (preparing.length) {
    const said = preparing.map((d) => `the ${d.max_seeds}-seed database of ${d.houses} houses, ${d.capture} capture: ${Math.round(100 * (d.done || 0))}%`).join('; ');
    tip.textContent = `The server is preparing its endgame databases (${said}). Until they are ready, positions beyond the opening book may be answered by bounds at first.`;
    tip.hidden = false;
    return;
  }
  // Kalah(6,4) with no database file for its rules: what would make it quick.
  const covered = health && health.files && health.files.some((f) => f.houses === 6 && f.max_seeds >= 20 && RULES.every((r) => f.rules[r] === state.rules[r]));
  if (root && root.h === 6 && seeds === 48 && health && health.files && !covered) {
    tip.textContent = 'This server has no endgame database for Kalah(6,4) under these rules, so positions beyond the opening book may be answered by bounds at first. ' +
      '"kalah db build --houses 6 --max-seeds 24 --packed" (with the rules\' flags) makes one, which the server then uses.';
    tip.hidden = false;
    return;
  }
  tip.hidden = true;
}

/** Asks `/health` until the server is ready (what it prepares, for the tip), then which databases it has. */
async function watchHealth() {
  try {
    health = await (await fetch('/health')).json();
    if (health.ready !== false) health.files = (await api('/api/v1/databases', {})).databases;
  } catch {
    health = null;
  }
  renderTip();
  if (health && health.ready === false) setTimeout(watchHealth, 2000);
}

function stepLine(by) {
  const answer = answerOf(current());
  if (!answer) return;
  state.preview = Math.max(0, Math.min(state.preview + by, answer.pv.length));
  render();
}

/** Plays the line of best play to the step shown, each move as a move played (the moves already in the game gone to, not repeated). */
function playLine() {
  const answer = answerOf(current());
  if (!answer || !state.preview) return;
  // Along a line of best play every move keeps the value: its mover's, if the position's is proven.
  const value = answer.exact ? answer.value : null;
  for (const step of answer.pv.slice(0, state.preview)) {
    const v = value === null ? null : step.side === answer.to_move ? value : -value;
    advance(step.house, step.position, { side: step.side, house: step.house, value: v, lower: v ?? undefined, upper: v ?? undefined, best: v, bestHouse: step.house });
  }
  moved();
  state.pushAddress = true;
  render();
}

/** Copies `text`, saying so (or showing it where the browser does not allow copying). */
async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    $('feedback').textContent = `${what} copied.`;
  } catch {
    $('feedback').textContent = `${what}: ${text}`;
  }
  $('feedback').className = '';
}

function start() {
  $('new-game').addEventListener('submit', (e) => {
    e.preventDefault();
    const [h, s] = [$('houses').value.trim(), $('seeds').value.trim()];
    if (!/^\d+$/.test(h) || !/^\d+$/.test(s)) {
      state.error = `Houses ${h || '(none)'} and seeds ${s || '(none)'}: give whole numbers (houses 1 to 8, seeds 1 and up).`;
      render();
      return;
    }
    newGame(h, s, true);
  });
  for (const r of RULES) {
    $(r).addEventListener('change', () => {
      state.rules[r] = $(r).value;
      replayUnderRules();
    });
  }
  $('mode').addEventListener('change', () => {
    state.mode = $('mode').value;
    state.hint = false;
    // The player's side at the bottom of the board.
    if (state.mode !== 'explore') state.view = state.mode;
    // The notes of the other mode are not carried into this one's.
    state.lastNote = '';
    $('feedback').textContent = '';
    render();
  });
  $('flip').addEventListener('click', () => {
    state.view = other(state.view);
    if ($('editor').hidden === false) editorHouses();
    render();
  });
  $('hint').addEventListener('click', () => {
    state.hint = true;
    render();
  });
  $('again').addEventListener('click', () => {
    const again = state.again;
    state.error = null;
    state.again = null;
    if (again) again();
    else if (current()) render();
    else newGame($('houses').value, $('seeds').value);
  });
  window.addEventListener('popstate', steppedInHistory);
  // Turning a phone, or resizing a window across the width where the board stands upright.
  UPRIGHT.addEventListener('change', () => {
    if (!$('editor').hidden) editorHouses();
    if (current()) render();
  });
  window.addEventListener('resize', () => current() && renderChart());
  $('chart').addEventListener('keydown', (e) => {
    const to = { ArrowLeft: state.cursor - 1, ArrowDown: state.cursor - 1, ArrowRight: state.cursor + 1, ArrowUp: state.cursor + 1, Home: 0, End: state.history.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    goTo(to);
    $('chart').focus();
  });
  // The arrows go from house to house on the board (Enter plays one).
  $('board').addEventListener('keydown', (e) => {
    const by = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[e.key];
    if (!by) return;
    const houses = housesInOrder($('board'));
    const at = houses.indexOf(document.activeElement);
    if (at < 0) return;
    e.preventDefault();
    e.stopPropagation();
    const next = houses[(at + by + houses.length) % houses.length];
    houses.forEach((g) => g.setAttribute('tabindex', g === next ? '0' : '-1'));
    next.focus();
  });
  // (On the document: Chrome lets Tab stop on an SVG picture that listens for focus itself.)
  document.addEventListener('focusin', (e) => {
    const g = e.target.closest && e.target.closest('#board .house');
    if (g) state.focusHouse = g.dataset.house;
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
    startFrom(state.root.position);
    state.pushAddress = true;
    render();
  });
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('promote').addEventListener('click', promote);
  $('delete').addEventListener('click', deleteFromHere);
  $('pv-back').addEventListener('click', () => stepLine(-1));
  $('pv-forward').addEventListener('click', () => stepLine(1));
  $('pv-play').addEventListener('click', playLine);
  $('edit').addEventListener('click', openEditor);
  $('editor').addEventListener('submit', applyEditor);
  $('editor-houses').addEventListener('change', editorHouses);
  $('editor-cancel').addEventListener('click', closeEditor);
  $('copy-link').addEventListener('click', () => copy(location.href, 'Link (it holds this position, the rules and the game)'));
  $('position-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('position-text').value.trim();
    if (!text) return;
    openPosition(text, { fallback: false, another: true });
  });
  $('position-copy').addEventListener('click', () => current() && copy(current().position, 'Position'));
  $('record-export').addEventListener('click', () => {
    if (!state.root) return;
    $('record-text').value = recordText();
    $('record-io').hidden = false;
    $('record-text').focus();
    $('record-text').select();
  });
  $('record-import').addEventListener('click', () => {
    $('record-io').hidden = false;
    $('record-text').focus();
  });
  $('record-open').addEventListener('click', async () => {
    let game;
    try {
      game = parseRecord($('record-text').value);
    } catch (e) {
      $('record-error').textContent = 'Not a game record: ' + e.message + '.';
      return;
    }
    $('record-error').textContent = '';
    Object.assign(state.rules, game.rules);
    if (await restoreGame(game, null, true)) $('record-io').hidden = true;
  });
  $('record-copy').addEventListener('click', () => copy($('record-text').value, 'Game record'));
  $('record-close').addEventListener('click', () => ($('record-io').hidden = true));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      // A request under way is stopped first; then an open editor closes.
      if (stop()) return;
      if (!$('editor').hidden) closeEditor();
      return;
    }
    if (e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowLeft') undo();
    if (e.key === 'ArrowRight') redo();
  });

  watchHealth();
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
