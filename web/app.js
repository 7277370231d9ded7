// The page of `qkv serve`. It asks the engine for everything it shows (the lessons, each stage's
// HTML, how a cell was computed, a training run's probes) and lays it out: it computes no number.
// The address holds the state (/lesson/3?stage=2&tokens=…&lang=zh), so a link shows what you see.
'use strict';

const main = document.getElementById('main');
const tip = document.getElementById('tip');
const params = new URLSearchParams(location.search);
let words = {};
let colours = [];

const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const kid of kids) e.append(kid);
  return e;
};

async function api(path, options) {
  const res = await fetch(path, options);
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function showError(where, err) {
  where.replaceChildren(el('p', { class: 'error', text: `${words.error || 'Refused'}: ${err.message}` }));
}

// The state in the address: only what differs from the defaults is written.
function setParam(name, value) {
  if (value === '' || value === null || value === undefined) params.delete(name); else params.set(name, value);
  const q = params.toString();
  history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
}

// The scenario a lesson runs on, as the query the API takes.
function scenarioQuery() {
  const q = new URLSearchParams();
  for (const k of ['tokens', 'd_model', 'heads', 'seed', 'data']) if (params.get(k)) q.set(k, params.get(k));
  q.set('lang', words.lang);
  return q;
}

// ---- the lesson list -----------------------------------------------------------------------
async function lessonList() {
  document.getElementById('where').textContent = words.lessons;
  const list = await api(`/api/lessons?lang=${words.lang}`);
  const ol = el('ol', { class: 'lessons' });
  for (const l of list.lessons) {
    const a = el('a', { href: `/lesson/${l.number}?lang=${words.lang}`, text: l.title });
    ol.append(el('li', {}, el('span', { class: 'n', text: String(l.number) }), a));
  }
  main.replaceChildren(el('h1', { text: 'qkv' }), ol);
}

// ---- a lesson, stage by stage ---------------------------------------------------------------
let lesson = null;   // the page JSON of /api/lesson/N
let stageAt = 0;     // from 0
let pendingG = null; // digits typed after g

async function lessonView(number, present) {
  document.body.classList.toggle('present', present);
  const form = el('form', { class: 'run' });
  const sentence = el('input', { type: 'text', name: 'tokens', placeholder: words.sentence, 'aria-label': words.sentence,
    value: params.get('tokens') || '' });
  const data = el('select', { name: 'data', 'aria-label': words.scenario }, el('option', { value: '', text: words.own }));
  for (const name of (await api('/api/scenarios')).scenarios) data.append(el('option', { value: name, text: name }));
  data.value = params.get('data') || '';
  const presentLink = el('a', { href: '#', text: words.present, onclick: (e) => { e.preventDefault(); go(`/present/${number}`); } });
  // a seed and sizes, as qkv lesson N --seed --d-model --heads takes them; the server checks them
  const numberField = (name, label) => el('label', {}, label + ' ',
    el('input', { type: 'number', name, min: name === 'seed' ? 0 : 1, value: params.get(name) || '', 'aria-label': label }));
  const sizes = el('details', { class: 'sizes' }, el('summary', { text: words.sizes }),
    numberField('seed', words.seed), numberField('d_model', 'd_model'), numberField('heads', words.head_count));
  if (['seed', 'd_model', 'heads'].some((k) => params.get(k))) sizes.open = true;
  form.append(sentence, data, el('button', { type: 'submit', text: words.run }), presentLink, sizes);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    setParam('tokens', sentence.value.trim());
    setParam('data', sentence.value.trim() ? '' : data.value);
    for (const k of ['d_model', 'heads', 'seed']) setParam(k, form.elements[k].value.trim());
    load();
  });
  const body = el('div', { id: 'lesson' });
  main.replaceChildren(form, body);

  async function load() {
    body.replaceChildren(el('p', { class: 'hint', text: words.working }));
    const wanted = Math.max(parseInt(params.get('stage') || '1', 10) || 1, 1);
    try {
      lesson = await api(`/api/lesson/${number}?${scenarioQuery()}&stage=${wanted}`);
    } catch (err) {
      // a stage past the lesson's end: the lesson from its first stage
      try { lesson = await api(`/api/lesson/${number}?${scenarioQuery()}&stage=1`); } catch (err2) { showError(body, err2); return; }
    }
    stageAt = aim = Math.max(lesson.stages.findIndex((s) => s.html !== null), 0);
    draw();
  }

  // Each stage's HTML is asked for when it is first shown: the same run, that stage's section.
  let asking = 0;  // the latest stage asked for: keys pressed quickly show the last one
  let aim = 0;     // the stage the keys have moved to, shown or on its way
  async function show(k) {
    const s = lesson.stages[k], ask = ++asking;
    aim = k;
    if (s.html === null) {
      const shown = lesson;
      let got;
      try { got = await api(`/api/lesson/${number}?${scenarioQuery()}&stage=${s.index}`); } catch (err) { showError(body, err); return; }
      if (lesson !== shown) return;  // another sentence was run meanwhile
      s.html = got.stages[k].html;
    }
    if (ask !== asking) return;
    stageAt = k;
    draw();
  }

  function draw() {
    document.getElementById('where').textContent = lesson.heading;
    document.title = lesson.heading;
    setParam('stage', stageAt ? String(stageAt + 1) : '');
    const s = lesson.stages[stageAt];
    const bar = el('div', { class: 'stagebar' },
      el('button', { type: 'button', text: '← ' + words.back, onclick: () => move(-1) }),
      el('span', { class: 'count', text: `${words.stage} ${s.index}/${lesson.stage_count}` }),
      el('button', { type: 'button', text: words.next + ' →', onclick: () => move(1) }));
    const stage = el('div', { class: 'stage-html' });
    stage.innerHTML = s.html;  // built and escaped by the engine's HTML renderer
    const parts = [el('h1', { text: lesson.heading }), el('p', { class: 'scenario', text: lesson.scenario_words }), bar, stage];
    if (stageAt + 1 === lesson.stages.length) for (const line of lesson.closing) parts.push(el('p', { class: 'next', text: line }));
    if (lesson.scenario_file && stageAt === 0) parts.push(el('p', { class: 'hint', text: words.save }), el('pre', { class: 'preface', text: lesson.scenario_file }));
    parts.push(el('p', { class: 'keys', text: words.point + ' ' + words.keys }));
    body.replaceChildren(...parts);
    window.scrollTo(0, 0);
  }

  function move(by) {
    const to = aim + by;
    if (!lesson || to < 0 || to >= lesson.stages.length) return;
    show(to);
  }

  keyHandler = (e) => {
    if (e.target.closest('input, select, textarea') || e.ctrlKey || e.metaKey || e.altKey) return;
    if (pendingG !== null) {
      if (/^[0-9]$/.test(e.key)) { pendingG += e.key; return; }
      if (e.key === 'Enter' && pendingG) { const k = parseInt(pendingG, 10) - 1; pendingG = null; if (lesson && k >= 0 && k < lesson.stages.length) show(k); e.preventDefault(); return; }
      pendingG = null;
    }
    if (['n', 'Enter', ' ', 'ArrowRight', 'PageDown'].includes(e.key)) { move(1); e.preventDefault(); }
    else if (['b', 'ArrowLeft', 'PageUp', 'Backspace'].includes(e.key)) { move(-1); e.preventDefault(); }
    else if (e.key === 'g') pendingG = '';
    else if (e.key === 'p') go(present ? `/lesson/${number}` : `/present/${number}`);
    else if (e.key === 'q' || e.key === 'Escape') go(present ? `/lesson/${number}` : '/');
    else if (e.key === '?' || e.key === 'h') alert(words.keys);
  };

  // Point at a cell: the engine says how it was computed.
  const asked = new Map();
  async function explain(td) {
    const figure = td.closest('figure.value');
    if (!figure || !lesson) return;
    const table = td.closest('table');
    const q = scenarioQuery();
    q.set('lesson', lesson.lesson); q.set('stage', lesson.stages[stageAt].index); q.set('name', figure.dataset.name);
    q.set('head', table.dataset.head); q.set('i', td.dataset.i); q.set('j', td.dataset.j);
    const steps = td.closest('.steps');
    if (steps) q.set('step', steps.dataset.step);  // a number a built-in recorded as it ran
    const key = q.toString();
    document.querySelectorAll('td.pointed').forEach((c) => c.classList.remove('pointed'));
    td.classList.add('pointed');
    try {
      if (!asked.has(key)) asked.set(key, api(`/api/cell?${key}`));
      const cell = await asked.get(key);
      if (!td.classList.contains('pointed')) return;
      tip.textContent = cell.lines.join('\n');
      tip.dataset.name = cell.name; tip.dataset.row = cell.row; tip.dataset.col = cell.col;
      const r = td.getBoundingClientRect();
      tip.style.left = `${Math.min(r.left, innerWidth - 420)}px`;
      tip.style.top = `${r.bottom + 6 + 200 > innerHeight ? Math.max(r.top - 6 - tip.offsetHeight, 0) : r.bottom + 6}px`;
      tip.hidden = false;
    } catch (err) { tip.textContent = err.message; tip.hidden = false; }
  }
  body.addEventListener('mouseover', (e) => { const td = e.target.closest('td[data-i]'); if (td) explain(td); });
  body.addEventListener('click', (e) => { const td = e.target.closest('td[data-i]'); if (td) explain(td); });
  body.addEventListener('mouseleave', () => { tip.hidden = true; });
  await load();
}

// ---- training, live ------------------------------------------------------------------------
function drawHeads(where, heads, tokens) {
  const n = tokens.length;
  where.replaceChildren(...heads.map((h) => {
    const canvas = el('canvas', { width: n, height: n, 'aria-label': `layer ${h.layer} head ${h.head}` });
    const g = canvas.getContext('2d');
    h.A.forEach((row, i) => row.forEach((w, j) => {
      g.fillStyle = colours[Math.max(0, Math.min(255, Math.round(w * 255)))] || '#000';
      g.fillRect(j, i, 1, 1);
    }));
    const cap = el('figcaption', { text: `${h.layer}.${h.head}  ${words.previous_token} ${h.previous_token.toFixed(2)} · ${words.induction} ${h.induction.toFixed(2)}` });
    return el('figure', { 'data-head': `${h.layer}.${h.head}` }, canvas, cap);
  }));
}

function drawLoss(svg, points, last) {
  const W = 600, H = 200, top = Math.max(...points.map((p) => p.loss), 0.1);
  const line = (key) => points.map((p) => `${(p.step / last * W).toFixed(1)},${(H - p[key] / top * H).toFixed(1)}`).join(' ');
  svg.replaceChildren();
  const ns = 'http://www.w3.org/2000/svg';
  for (const [key, cls] of [['loss', 'all'], ['loss_repeated', 'repeated']]) {
    const pl = document.createElementNS(ns, 'polyline');
    pl.setAttribute('points', line(key)); pl.setAttribute('class', cls);
    svg.append(pl);
  }
  const t = document.createElementNS(ns, 'text');
  t.setAttribute('x', 4); t.setAttribute('y', 12); t.textContent = `${words.loss} ≤ ${top.toFixed(2)}`;
  svg.append(t);
}

function markDrop(svg, step, last) {
  const ns = 'http://www.w3.org/2000/svg', x = (step / last * 600).toFixed(1);
  const line = document.createElementNS(ns, 'line');
  for (const [k, v] of [['x1', x], ['x2', x], ['y1', 0], ['y2', 200], ['class', 'drop']]) line.setAttribute(k, v);
  const t = document.createElementNS(ns, 'text');
  t.setAttribute('x', Number(x) + 4); t.setAttribute('y', 24); t.textContent = `${words.drop} (${step})`;
  svg.append(line, t);
}

async function trainView() {
  document.getElementById('where').textContent = words.train;
  const form = el('form', { class: 'run' });
  const field = (name, label, value) => el('label', {}, label + ' ', el('input', { type: 'number', name, value, min: 0 }));
  form.append(field('steps', words.steps, params.get('steps') || '1500'), field('seed', words.seed, params.get('seed') || '1'),
    el('button', { type: 'submit', text: words.start }), el('button', { type: 'button', id: 'stop', text: words.stop }));
  const status = el('p', { class: 'status' });
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'loss'); svg.setAttribute('viewBox', '0 0 600 200'); svg.setAttribute('preserveAspectRatio', 'none');
  const heads = el('div', { class: 'heads' });
  const result = el('div', { class: 'result' });
  main.replaceChildren(el('h1', { text: words.train }), form, status,
    el('div', { class: 'train-grid' }, el('div', {}, svg), el('div', {}, el('p', { class: 'hint', text: words.heads }), heads)), result);
  let run = null, source = null;
  form.querySelector('#stop').addEventListener('click', () => { if (run) fetch(`/api/train/${run.id}/stop`, { method: 'POST' }); });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ lang: words.lang });
    for (const k of ['steps', 'seed']) { q.set(k, form.elements[k].value); setParam(k, form.elements[k].value); }
    result.replaceChildren();
    try { run = await api(`/api/train?${q}`, { method: 'POST' }); } catch (err) { showError(result, err); return; }
    if (source) source.close();
    source = new EventSource(run.events);
    let tokens = [], points = [], last = 1;
    source.addEventListener('start', (m) => { const s = JSON.parse(m.data); tokens = s.tokens; last = s.steps; });
    source.addEventListener('progress', (m) => {
      const p = JSON.parse(m.data);
      status.textContent = p.text;
      if (p.loss !== null) points.push({ step: p.step, loss: p.loss, loss_repeated: p.loss_repeated });
      drawLoss(svg, points, last);
      drawHeads(heads, p.heads, tokens);
    });
    source.addEventListener('report', (m) => {
      const r = JSON.parse(m.data);
      result.replaceChildren(el('details', { class: 'more' }, el('summary', { text: words.report }),
        el('pre', { class: 'preface', text: r.text })));
      // the heads the run names, under their pictures; the drop, on the curve
      for (const [head, role] of Object.entries(r.roles)) {
        const cap = heads.querySelector(`figure[data-head="${head}"] figcaption`);
        if (cap) cap.append(el('br'), el('span', { class: 'named', text: role }));
      }
      if (r.drop_step !== null) markDrop(svg, r.drop_step, last);
    });
    source.addEventListener('done', (m) => {
      source.close();
      result.dataset.final = m.data;  // the JSON qkv train --format json prints
      status.textContent += ` · ${words.finished}`;
    });
    source.addEventListener('error', (m) => {
      if (m.data) showError(result, new Error(JSON.parse(m.data).error));
      source.close();
    });
  });
}

// ---- the address decides the view ---------------------------------------------------------
let keyHandler = null;
document.addEventListener('keydown', (e) => { if (keyHandler) keyHandler(e); });

function go(path) {
  const q = params.toString();
  location.assign(path + (q ? '?' + q : ''));
}

async function start() {
  try {
    // the language the address names, or the server's (qkv serve --lang)
    words = await api(params.get('lang') ? `/api/words?lang=${encodeURIComponent(params.get('lang'))}` : '/api/words');
    colours = (await api('/api/colours')).colours;
  } catch (err) { showError(main, err); return; }
  document.documentElement.lang = words.lang === 'zh' ? 'zh-Hans' : 'en';
  const other = words.lang === 'zh' ? 'en' : 'zh';
  const toLang = document.getElementById('to-lang');
  toLang.textContent = words.lang === 'zh' ? 'English' : '中文';
  toLang.addEventListener('click', (e) => { e.preventDefault(); params.set('lang', other); location.search = params.toString(); });
  document.getElementById('to-train').textContent = words.train;
  document.getElementById('to-train').href = `/train?lang=${words.lang}`;
  document.getElementById('home').href = `/?lang=${words.lang}`;
  const path = location.pathname;
  let m;
  try {
    if ((m = path.match(/^\/lesson\/(\d+)$/))) await lessonView(m[1], false);
    else if ((m = path.match(/^\/present\/(\d+)$/))) await lessonView(m[1], true);
    else if (path === '/train') await trainView();
    else await lessonList();
  } catch (err) { showError(main, err); }
}
start();
