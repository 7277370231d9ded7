// The pages of a class (`qkv serve --class NAME`): one document, three views by its address.
//   /class            a student: joins with a name and the class's code, then follows the stage the
//                     teacher is on and answers the open lesson's exercises on their own numbers
//   /class/teacher    the teacher (#t=TOKEN, the link the terminal printed): where the class is, the
//                     students, and per question who got it right and the named mistakes
//   /class/present    the projector: the current stage, large, following the teacher's moves
// Like app.js it computes no number: every figure and verdict is the server's. Every string the
// server sends is put in as text, except a stage's HTML, which the engine's renderer escaped.
'use strict';

const main = document.getElementById('main');
const params = new URLSearchParams(location.search);
const POLL_MS = 2000;
const STORE_KEY = 'qkv-class';  // the student's token, so a reload goes on where they were
let words = {};
let auth = null;  // { header, token }: who this page speaks for
// Counts the student's own requests that change an exercise (answer, hint), at their start and at
// their end: a refresh asked for while one was on its way may carry the state from before it, and
// is dropped (the next poll brings the new one).
let changes = 0;

const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};

// A word of the page in the class's language; the key itself if the server has none (never blank).
const w = (key) => words[key] || key;

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(path, body) {
  const headers = {};
  if (auth) headers[auth.header] = auth.token;
  const options = { headers };
  if (body !== undefined) {
    options.method = 'POST';
    headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  let res;
  try { res = await fetch(path, options); } catch { throw new ApiError(0, w('class_offline')); }
  const answer = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new ApiError(res.status, answer.error || res.statusText);
  return answer;
}

const errorLine = (err) => el('p', { class: 'error', role: 'alert', text: `${w('error')}: ${err.message}` });

function showError(where, err) { where.replaceChildren(errorLine(err)); }

// Calls `tick` now and then every POLL_MS after it finished (never two at once), until it returns
// 'stop'; a failed tick shows that the server is not answering and the polling goes on, for a
// server that restarts.
function poll(tick) {
  const offline = document.getElementById('offline');
  async function again() {
    try {
      const said = await tick();
      offline.hidden = true;
      if (said === 'stop') return;
    } catch (err) {
      offline.textContent = err.status === 0 ? w('class_offline') : `${w('error')}: ${err.message}`;
      offline.hidden = false;
      if (err.status === 401) return;  // the class does not know this token: asking again cannot help
    }
    setTimeout(again, POLL_MS);
  }
  return again();
}

// ---- a stage of the lesson the class is on ----------------------------------------------------
// The stage as the lesson page shows it: the engine's HTML of that one stage.
async function stageOf(state, jump) {
  const page = await api(`/api/lesson/${state.lesson}?stage=${state.stage}&lang=${words.lang}`);
  const stage = page.stages.find((s) => s.html !== null) || page.stages[0];
  const html = el('div', { class: 'stage-html' });
  html.innerHTML = stage.html;  // built and escaped by the engine's HTML renderer
  return el('div', { class: 'stage-view', 'data-lesson': state.lesson, 'data-stage': state.stage },
    el('h1', { text: page.heading }),
    el('p', { class: 'count' }, `${w('stage')} ${state.stage}/${state.stages}`, jump || ''), html);
}

// Lesson 0 is a lesson too: only a class with no lesson at all waits.
const hasLesson = (state) => Number.isInteger(state.lesson);
const waiting = () => el('p', { class: 'hint waiting', text: w('class_waiting') });

// ---- shown values: a matrix as a small table, a stack of matrices as one table each ------------
const number = (x) => (typeof x === 'number' ? (Number.isInteger(x) ? String(x) : x.toFixed(4)) : String(x));

function matrixTable(rows, rowLabels, colLabels) {
  const table = el('table', { class: 'matrix' });
  if (colLabels && colLabels.length) {
    const head = el('tr', {}, el('th'));
    for (const c of colLabels) head.append(el('th', { scope: 'col', text: c }));
    table.append(el('thead', {}, head));
  }
  const body = el('tbody');
  rows.forEach((row, i) => {
    const tr = el('tr', {}, el('th', { scope: 'row', text: rowLabels && rowLabels.length ? rowLabels[i] : String(i + 1) }));
    for (const x of (Array.isArray(row) ? row : [row])) tr.append(el('td', { text: number(x) }));
    body.append(tr);
  });
  table.append(body);
  return el('div', { class: 'table-wrap' }, table);
}

function valueFigure(v) {
  const caption = el('figcaption', {}, el('span', { class: 'name', text: v.name }), ' ',
    el('code', { class: 'shape', text: `[${(v.shape || []).join(', ')}]` }));
  const figure = el('figure', { class: 'value', 'data-name': v.name }, caption);
  if (!Array.isArray(v.data)) figure.append(el('p', { class: 'scalar', text: `${v.name} = ${number(v.data)}` }));
  else if (v.shape.length === 1) figure.append(matrixTable([v.data], [], v.col_labels));
  else if (v.shape.length === 2) figure.append(matrixTable(v.data, v.row_labels, v.col_labels));
  else v.data.forEach((m, h) => figure.append(el('h4', { text: `${v.name}[${h + 1}]` }), matrixTable(m, v.row_labels, v.col_labels)));
  return figure;
}

// ---- the student ---------------------------------------------------------------------------
function saved() {
  try { return JSON.parse(localStorage.getItem(STORE_KEY)); } catch { return null; }
}

function forget() { localStorage.removeItem(STORE_KEY); auth = null; }

async function studentView() {
  document.getElementById('where').textContent = w('class_student_title');
  const me = saved();
  if (me && me.token) {
    auth = { header: 'X-Qkv-Student', token: me.token };
    try {
      const state = await api('/api/class/state');
      return classroom(me, state);
    } catch (err) {
      // a token this class does not know (another class, or one started afresh): join again
      if (err.status !== 401 && err.status !== 403) { showError(main, err); return; }
      forget();
    }
  }
  joinForm();
}

function joinForm() {
  document.getElementById('who').replaceChildren();
  const name = el('input', { type: 'text', name: 'name', maxlength: 40, autocomplete: 'nickname', required: true, id: 'join-name' });
  const code = el('input', { type: 'text', name: 'code', maxlength: 6, autocapitalize: 'characters', autocomplete: 'off',
    spellcheck: 'false', required: true, id: 'join-code', value: (params.get('code') || '').toUpperCase() });
  const said = el('div', { class: 'said' });
  const form = el('form', { class: 'join' },
    el('h1', { text: w('class_join') }),
    el('label', { for: 'join-name', text: w('class_name') }), name,
    el('label', { for: 'join-code', text: w('class_code') }), code,
    el('button', { type: 'submit', text: w('class_join') }), said);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    said.replaceChildren();
    auth = null;
    try {
      const joined = await api('/api/class/join', { code: code.value.trim().toUpperCase(), name: name.value.trim() });
      const me = { token: joined.token, name: joined.name, class: joined.class, lang: joined.lang };
      localStorage.setItem(STORE_KEY, JSON.stringify(me));
      auth = { header: 'X-Qkv-Student', token: me.token };
      // the join link has the code in it: once in, a reload should not show it again
      params.delete('code');
      const q = params.toString();
      history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
      classroom(me, await api('/api/class/state'));
    } catch (err) { said.replaceChildren(errorLine(err)); }
  });
  main.replaceChildren(form);
  (code.value ? name : code).focus();
}

function classroom(me, firstState) {
  const who = document.getElementById('who');
  who.replaceChildren(el('span', { class: 'me', text: me.name }), ' ',
    el('a', { href: '#', class: 'leave', text: w('class_leave'), onclick: (e) => {
      e.preventDefault(); forget(); location.reload();
    } }));
  document.getElementById('where').textContent = firstState.class;
  const stageArea = el('section', { class: 'stage-area' }, waiting());
  const exerciseArea = el('section', { class: 'exercises', id: 'exercises' });
  main.replaceChildren(stageArea, exerciseArea);

  let shownStage = '', shownLesson = null, ticks = 0;
  const cards = new Map();  // exercise id → its card, kept across refreshes (what is typed stays)

  async function loadExercises(fresh) {
    const asked = changes;
    const got = await api(`/api/class/exercises?lang=${words.lang}`);
    if (!fresh && changes !== asked) return;
    if (fresh) {
      cards.clear();
      const list = el('div', { class: 'exercise-list' });
      for (const ex of got.exercises) { const card = exerciseCard(ex); cards.set(ex.id, card); list.append(card.root); }
      exerciseArea.replaceChildren(el('h2', { text: `${w('class_exercises')} · ${w('class_lesson')} ${got.lesson}` }), list);
      if (!got.exercises.length) exerciseArea.append(el('p', { class: 'hint', text: w('class_no_exercises') }));
    } else {
      for (const ex of got.exercises) if (cards.has(ex.id)) cards.get(ex.id).update(ex);
    }
  }

  async function tick(state) {
    if (!state) state = await api('/api/class/state');
    ticks++;
    if (!hasLesson(state)) { stageArea.replaceChildren(waiting()); return; }
    const at = `${state.lesson}/${state.stage}`;
    if (at !== shownStage) {
      // on a phone the stage is long: a way down to the exercises
      stageArea.replaceChildren(await stageOf(state, el('a', { href: '#exercises', text: `${w('class_exercises')} ↓` })));
      shownStage = at;
    }
    if (state.lesson !== shownLesson) {
      await loadExercises(true);
      shownLesson = state.lesson;
    } else if (ticks % 5 === 0) {
      await loadExercises(false);  // the teacher may have closed a question or released a solution
    }
  }

  poll(async () => {
    try { await tick(ticks === 0 ? firstState : null); } catch (err) {
      // the class no longer knows this token (it was started afresh): join again
      if (err.status !== 401) throw err;
      forget();
      joinForm();
      return 'stop';
    }
  });
}

const statusWord = { 'not tried': 'class_not_tried', wrong: 'class_wrong', correct: 'class_correct' };

// One exercise: its question, shown values, an answer field of its kind and the three buttons.
function exerciseCard(ex) {
  const root = el('article', { class: 'exercise', 'data-id': ex.id, 'data-kind': ex.kind });
  const status = el('span', { class: 'status' });
  const note = el('p', { class: 'note-line' });
  const verdict = el('div', { class: 'verdict', 'aria-live': 'polite' });
  const hints = el('div', { class: 'hints' });
  const solution = el('div', { class: 'solution' });
  const fieldId = `answer-${ex.id}`;

  let field;  // the answer as text, whatever the kind
  const form = el('form', { class: 'answer' });
  if (ex.kind === 'choice') {
    const set = el('fieldset', { class: 'choices' }, el('legend', { class: 'visually-hidden', text: w('class_your_answer') }));
    for (const c of ex.choices) {
      set.append(el('label', { class: 'choice' },
        el('input', { type: 'radio', name: fieldId, value: c.letter }),
        el('span', { class: 'letter', text: c.letter }), ' ', el('span', { text: c.text })));
    }
    form.append(set);
    field = {
      get: () => (set.querySelector('input:checked') || {}).value || '',
      set: (v) => { for (const r of set.querySelectorAll('input')) r.checked = r.value === v; },
      disable: (d) => { for (const r of set.querySelectorAll('input')) r.disabled = d; },
    };
  } else {
    const help = { number: 'class_number_help', shape: 'class_shape_help', matrix: 'class_matrix_help' }[ex.kind] || 'class_your_answer';
    const input = ex.kind === 'matrix'
      ? el('textarea', { name: 'answer', id: fieldId, rows: 4, spellcheck: 'false', autocomplete: 'off', placeholder: w(help) })
      : el('input', { type: 'text', name: 'answer', id: fieldId, autocomplete: 'off', spellcheck: 'false', placeholder: w(help),
        inputmode: ex.kind === 'number' ? 'decimal' : null });
    form.append(el('label', { for: fieldId, text: w('class_your_answer') }), input);
    field = { get: () => input.value.trim(), set: (v) => { input.value = v; }, disable: (d) => { input.disabled = d; } };
  }
  const check = el('button', { type: 'submit', class: 'check', text: w('class_check') });
  const hint = el('button', { type: 'button', class: 'hint-button', text: w('class_hint') });
  const solve = el('button', { type: 'button', class: 'solution-button', text: w('class_solution') });
  form.append(el('div', { class: 'buttons' }, check, hint, solve));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const answer = field.get();
    if (!answer) return;
    check.disabled = true;
    changes++;
    try {
      const v = await api('/api/class/answer', { id: ex.id, answer });
      showVerdict(v);
      update({ ...ex, status: v.correct ? 'correct' : 'wrong', attempts: ex.attempts + 1, answer });
    } catch (err) {
      // 422: the server could not read the answer (it is recorded as unreadable); the rest refused
      verdict.replaceChildren(el('p', { class: err.status === 422 ? 'error unreadable' : 'error', text: err.message }));
      verdict.dataset.correct = 'false';
      if (err.status === 422) update({ ...ex, attempts: ex.attempts + 1, answer });
      if (err.status === 409) update({ ...ex, closed: true });
    } finally { check.disabled = ex.closed; changes++; }
  });

  hint.addEventListener('click', async () => {
    changes++;
    try {
      const h = await api('/api/class/hint', { id: ex.id });
      showHints(h.shown, h.none_new);
      update({ ...ex, hints_seen: h.shown.length });
    } catch (err) { hints.replaceChildren(errorLine(err)); } finally { changes++; }
  });

  solve.addEventListener('click', async () => {
    try {
      const s = await api('/api/class/solution', { id: ex.id });
      solution.replaceChildren(el('h4', { text: w('class_solution') }), el('p', { class: 'solution-text', text: s.solution }));
      if (s.expected) solution.append(expectedValue(s.expected));
    } catch (err) { solution.replaceChildren(errorLine(err)); }
  });

  // the hints seen so far (the exercise's list after a reload, or what the Hint button brought)
  function showHints(shown, noneNew) {
    const list = el('ol', { class: 'hint-list' });
    for (const text of shown) list.append(el('li', { text }));
    hints.replaceChildren(list);
    if (noneNew) hints.append(el('p', { class: 'hint', text: w('class_no_more_hints') }));
  }

  function showVerdict(v) {
    verdict.dataset.correct = String(v.correct);
    const parts = [el('p', { class: v.correct ? 'right' : 'not-yet', text: v.correct ? w('class_verdict_right') : w('class_not_yet') })];
    if (v.mistakes.length) {
      const named = el('ul', { class: 'mistakes' });
      for (const m of v.mistakes) named.append(el('li', { 'data-mistake': m.id, text: m.text }));
      parts.push(named);
    }
    if (v.explanation.length) parts.push(el('pre', { class: 'explanation', text: v.explanation.join('\n') }));
    if (v.correct && v.solution) parts.push(el('details', {}, el('summary', { text: w('class_solution') }),
      el('p', { class: 'solution-text', text: v.solution })));
    verdict.replaceChildren(...parts);
  }

  function update(now) {
    ex = now;
    root.dataset.status = ex.status;
    status.textContent = `${w(statusWord[ex.status] || ex.status)}${ex.attempts ? ` · ${w('class_attempts')} ${ex.attempts}` : ''}`;
    // what the student last sent stays in the field, unless they are typing something else
    if (ex.answer !== null && ex.answer !== undefined && !form.contains(document.activeElement) && !field.get()) field.set(ex.answer);
    field.disable(ex.closed);
    check.disabled = ex.closed;
    solve.disabled = !ex.released;
    const lines = [];
    if (ex.closed) lines.push(w('class_closed'));
    if (ex.released) lines.push(w('class_released'));
    if (ex.hints_seen) lines.push(`${w('class_hints_seen')} ${ex.hints_seen}`);
    note.textContent = lines.join(' · ');
    note.hidden = !lines.length;
  }

  root.append(el('h3', {}, el('span', { class: 'id', text: ex.id }), ' ', status),
    el('p', { class: 'question', text: ex.question }));
  if (ex.values.length) root.append(el('div', { class: 'values' }, ...ex.values.map(valueFigure)));
  root.append(form, note, verdict, hints, solution);
  if (ex.hints && ex.hints.length) showHints(ex.hints, false);
  update(ex);
  return { root, update };
}

function expectedValue(v) {
  if (Array.isArray(v.data)) return valueFigure(v);
  return el('p', { class: 'scalar' }, el('span', { class: 'name', text: v.name }), ` = ${number(v.data)}`);
}

// ---- the teacher ---------------------------------------------------------------------------
function teacherToken() {
  const m = location.hash.match(/[#&]t=([0-9a-f]{32})/);
  return m ? m[1] : null;
}

async function teacherView() {
  document.getElementById('where').textContent = w('class_teacher');
  const token = teacherToken();
  if (!token) { main.replaceChildren(el('p', { class: 'error', text: w('class_no_token') })); return; }
  auth = { header: 'X-Qkv-Teacher', token };
  let room = await api('/api/class/teacher');

  const code = el('p', { class: 'code', 'aria-label': w('class_code') });
  const join = el('a', { class: 'join-link' });
  const count = el('span', { class: 'count' });
  const title = el('p', { class: 'title' });
  const back = el('button', { type: 'button', class: 'prev', text: '← ' + w('back'), onclick: () => move(room.lesson, room.stage - 1) });
  const next = el('button', { type: 'button', class: 'next', text: w('next') + ' →', onclick: () => move(room.lesson, room.stage + 1) });
  const lessonInput = el('input', { type: 'number', name: 'lesson', min: 0, max: 99, 'aria-label': w('class_lesson') });
  const lessonForm = el('form', { class: 'lesson-form' }, el('label', {}, w('class_lesson') + ' ', lessonInput),
    el('button', { type: 'submit', text: w('class_open_lesson') }));
  lessonForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const n = parseInt(lessonInput.value, 10);
    if (Number.isInteger(n)) move(n, 1);
  });
  const moved = el('div', { class: 'said' });
  const presentLink = el('a', { class: 'to-present', href: `/class/present${location.search}#t=${token}`, target: '_blank', text: w('present') });
  const exportCsv = el('button', { type: 'button', class: 'export', 'data-format': 'csv', text: w('class_export_csv'), onclick: () => download('csv') });
  const exportJson = el('button', { type: 'button', class: 'export', 'data-format': 'json', text: w('class_export_json'), onclick: () => download('json') });
  const students = el('div', { class: 'students' });
  const questions = el('div', { class: 'questions' });
  const total = el('p', { class: 'total hint' });

  main.replaceChildren(
    el('section', { class: 'joining' }, el('h1', { class: 'class-name' }), el('p', { class: 'hint', text: w('class_join_here') }), code, join),
    el('section', { class: 'where' }, title, el('div', { class: 'stagebar' }, back, count, next), lessonForm, moved,
      el('p', { class: 'links' }, presentLink, ' ', exportCsv, ' ', exportJson)),
    el('div', { class: 'room' },
      el('section', {}, el('h2', { text: w('class_students') }), students),
      el('section', {}, el('h2', { text: w('class_questions') }), questions, total)));

  async function move(lesson, stage) {
    if (!Number.isInteger(lesson) || stage < 1) return;
    moved.replaceChildren();
    try {
      await api('/api/class/teacher/move', { lesson, stage });
      room = await api('/api/class/teacher');
      draw(true);
    } catch (err) { moved.replaceChildren(errorLine(err)); }
  }

  async function setQuestion(id, change) {
    try {
      await api('/api/class/teacher/question', { id, ...change });
      room = await api('/api/class/teacher');
      draw(true);
    } catch (err) { moved.replaceChildren(errorLine(err)); }
  }

  async function download(format) {
    try {
      const res = await fetch(`/api/class/teacher/export?format=${format}`, { headers: { 'X-Qkv-Teacher': token } });
      if (!res.ok) throw new ApiError(res.status, (await res.json().catch(() => ({}))).error || res.statusText);
      const url = URL.createObjectURL(await res.blob());
      const a = el('a', { href: url, download: `${room.class}.${format}` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (err) { moved.replaceChildren(errorLine(err)); }
  }

  let drawn = '';
  function draw(force) {
    const now = JSON.stringify(room);
    if (!force && now === drawn) return;  // redraw only what changed: a click in progress survives
    drawn = now;
    main.querySelector('.class-name').textContent = room.class;
    document.title = `qkv · ${room.class}`;
    code.textContent = room.code;
    join.textContent = room.join;
    join.href = room.join;
    title.textContent = hasLesson(room) ? `${w('class_lesson')} ${room.lesson} · ${room.title}` : w('class_waiting');
    count.textContent = hasLesson(room) ? `${w('stage')} ${room.stage}/${room.stages}` : '';
    back.disabled = !hasLesson(room) || room.stage <= 1;
    next.disabled = !hasLesson(room) || room.stage >= room.stages;
    if (document.activeElement !== lessonInput) lessonInput.value = hasLesson(room) ? room.lesson : '';
    students.replaceChildren(studentTable(room.students));
    questions.replaceChildren(...room.questions.map((q) => questionCard(q, setQuestion)));
    // the server lists a lesson's questions once someone can answer them
    if (!room.questions.length) questions.append(el('p', { class: 'hint', text: w(room.students.length ? 'class_no_exercises' : 'class_no_students') }));
    total.textContent = `${w('class_answers_total')}: ${room.answers}`;
  }

  draw(true);
  poll(async () => { room = await api('/api/class/teacher'); draw(false); });
}

function studentTable(list) {
  const table = el('table', { class: 'student-table' },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: w('class_student') }),
      el('th', { scope: 'col', text: w('class_answered') }), el('th', { scope: 'col', text: w('class_right') }))));
  const body = el('tbody');
  for (const s of list) {
    body.append(el('tr', { 'data-answered': s.answered, 'data-right': s.right },
      el('td', { class: 'name', text: s.name }), el('td', { text: String(s.answered) }), el('td', { text: String(s.right) })));
  }
  table.append(body);
  const box = el('div', { class: 'table-wrap' }, table);
  return list.length ? box : el('p', { class: 'hint', text: w('class_no_students') });
}

function questionCard(q, setQuestion) {
  const share = q.answered ? q.right / q.answered : 0;
  const bar = el('div', { class: 'bar', role: 'img', 'aria-label': `${q.right}/${q.answered}` }, el('span'));
  bar.firstChild.style.width = `${Math.round(share * 100)}%`;  // a CSSOM style, which the page's policy allows
  const card = el('article', { class: 'question', 'data-id': q.id, 'data-right': q.right, 'data-answered': q.answered,
    'data-closed': String(q.closed), 'data-released': String(q.released) },
    el('h3', {}, el('span', { class: 'id', text: q.id }), ' ', el('span', { class: 'kind', text: q.kind })),
    el('p', { class: 'score' },
      el('strong', { class: 'right', text: String(q.right) }), ` ${w('class_right')} · `,
      el('strong', { class: 'answered', text: String(q.answered) }), ` ${w('class_answered')} · `,
      el('span', { class: 'students-count', text: String(q.students) }), ` ${w('class_students_word')}`),
    bar);
  if (q.mistakes.length) {
    const list = el('ol', { class: 'mistakes' });
    for (const m of [...q.mistakes].sort((a, b) => b.sheets - a.sheets)) {
      list.append(el('li', { 'data-mistake': m.id, 'data-count': m.sheets },
        el('span', { class: 'times', text: `${m.sheets} ×` }), ' ', el('code', { text: m.id }), ' ',
        el('span', { class: 'explanation', text: m.explanation })));
    }
    card.append(el('h4', { text: w('class_mistakes') }), list);
  }
  card.append(el('div', { class: 'buttons' },
    el('button', { type: 'button', class: 'close-question', 'aria-pressed': String(q.closed),
      text: q.closed ? w('class_reopen') : w('class_close'), onclick: () => setQuestion(q.id, { closed: !q.closed }) }),
    el('button', { type: 'button', class: 'release-question', 'aria-pressed': String(q.released),
      text: q.released ? w('class_withdraw') : w('class_release'), onclick: () => setQuestion(q.id, { released: !q.released }) })));
  return card;
}

// ---- the projector ---------------------------------------------------------------------------
async function presentView() {
  document.body.classList.add('present');
  const token = teacherToken();
  if (!token) { main.replaceChildren(el('p', { class: 'error', text: w('class_no_token') })); return; }
  auth = { header: 'X-Qkv-Teacher', token };
  let shown = '', state = null;
  main.replaceChildren(waiting());
  // the teacher may step from here too: the lesson page's keys
  document.addEventListener('keydown', async (e) => {
    if (!state || !hasLesson(state) || e.ctrlKey || e.metaKey || e.altKey) return;
    let to = null;
    if (['n', 'Enter', ' ', 'ArrowRight', 'PageDown'].includes(e.key)) to = state.stage + 1;
    else if (['b', 'ArrowLeft', 'PageUp', 'Backspace'].includes(e.key)) to = state.stage - 1;
    if (to === null || to < 1 || to > state.stages) return;
    e.preventDefault();
    try { state = await api('/api/class/teacher/move', { lesson: state.lesson, stage: to }); await show(); } catch { /* the poll says it */ }
  });
  async function show() {
    if (!hasLesson(state)) { main.replaceChildren(waiting()); shown = ''; return; }
    const at = `${state.lesson}/${state.stage}`;
    if (at === shown) return;
    const view = await stageOf(state);
    shown = at;
    main.replaceChildren(view);
  }
  poll(async () => { state = await api('/api/class/state'); await show(); });
}

// ---- the address decides the view -------------------------------------------------------------
async function start() {
  const me = saved();
  try {
    // the language the address names, else the one the class was joined in, else the class's own
    const lang = params.get('lang') || (location.pathname === '/class' && me && me.lang) || '';
    words = await api(lang ? `/api/words?lang=${encodeURIComponent(lang)}` : '/api/words');
  } catch (err) { showError(main, err); return; }
  document.documentElement.lang = words.lang === 'zh' ? 'zh-Hans' : 'en';
  const toLang = document.getElementById('to-lang');
  toLang.textContent = words.lang === 'zh' ? 'English' : '中文';
  toLang.addEventListener('click', (e) => {
    e.preventDefault();
    params.set('lang', words.lang === 'zh' ? 'en' : 'zh');
    location.assign(location.pathname + '?' + params.toString() + location.hash);
  });
  const offline = el('p', { id: 'offline', class: 'error', role: 'status', hidden: true });
  main.before(offline);
  try {
    if (location.pathname === '/class/teacher') await teacherView();
    else if (location.pathname === '/class/present') await presentView();
    else await studentView();
  } catch (err) { showError(main, err); }
}
start();
