// qkv serve --class in a real browser: Debian's chromium, headless, driven by puppeteer-core. A
// teacher and students, each student in a browser context of their own (their own storage, as on
// their own phone). The teacher opens lesson 4; three students answer exercise 4.1 — one right,
// one with a named mistake, one with a number nobody foresaw — and the teacher's page shows the
// room; the class's export, graded by `qkv grade`, gives the same figures. Then: a reload keeps a
// student in, a wrong code is refused, a name made of HTML stays text, and a phone does not scroll
// sideways. Every answer the test calls right is computed here from the numbers the student was
// shown, never taken from the server. The page may load nothing but what the server serves.
// Screenshots go to QKV_SCREENSHOTS (a scratch folder when unset). Exit 0 passed, 1 failed, 77 skipped.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';

let puppeteer;
try { puppeteer = (await import('puppeteer-core')).default; } catch {
  console.log('skipped: puppeteer-core is not installed (bash .ci/deps --tests installs it)');
  process.exit(77);
}
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
if (!chromium) { console.log('skipped: no chromium (bash .ci/deps --tests installs it)'); process.exit(77); }
const shots = process.env.QKV_SCREENSHOTS || mkdtempSync(join(tmpdir(), 'qkv-shots-'));
mkdirSync(shots, { recursive: true });
const qkv = process.env.QKV_BIN || 'build/src/qkv';

// A fresh state folder each run (under XDG_STATE_HOME when meson gives one): a class of the same
// name would otherwise resume, with last run's students in it.
const stateParent = process.env.XDG_STATE_HOME || tmpdir();
mkdirSync(stateParent, { recursive: true });
const env = { ...process.env, XDG_STATE_HOME: mkdtempSync(join(stateParent, 'class-')) };
const CLASS = 'T';

// the server, on a free port; the join code and the teacher's token as its terminal shows them
function startServer() {
  const server = spawn(qkv, ['serve', '--class', CLASS, '--port', '0', '--lang', 'en'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const started = new Promise((resolve, reject) => {
    let said = '';
    server.stdout.on('data', (d) => {
      said += d;
      const base = said.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      const code = said.match(/\/class\?code=([ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6})/);
      const token = said.match(/\/class\/teacher#t=([0-9a-f]{32})/);
      if (base && code && token) resolve({ base: base[0].slice(0, -1), code: code[1], token: token[1], said });
    });
    server.stderr.on('data', (d) => { said += d; });
    server.on('exit', (status) => reject(new Error(`qkv serve --class ended with ${status}: ${said}`)));
    setTimeout(() => reject(new Error(`qkv serve --class printed no address, code and teacher link in 30 s: ${said}`)), 30000);
  });
  return { server, started };
}

const { server, started } = startServer();
const { base, code, token } = await started;

const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--lang=en-US'] });
const offServer = [];
let failed = 0;

// A page, in a browser context of its own unless one is given: each student is a separate browser.
async function page({ width = 1280, height = 900, context = null } = {}) {
  const ctx = context || await browser.createBrowserContext();
  const p = await ctx.newPage();
  await p.setViewport({ width, height });
  await p.setRequestInterception(true);
  p.on('request', (r) => {
    if (p.holdExercises && r.method() === 'GET' && r.url().startsWith(base + '/api/class/exercises')) p.holdExercises(r);
    else if (r.url().startsWith(base + '/') || r.url().startsWith('data:') || r.url().startsWith('blob:')) r.continue();
    else { offServer.push(r.url()); r.abort(); }
  });
  p.on('pageerror', (e) => { console.log('page error:', e.message); failed++; });
  p.on('dialog', async (d) => { console.log('a dialog opened:', d.message()); failed++; await d.dismiss(); });
  return p;
}

async function call(path, { teacher, student, body } = {}) {
  const headers = {};
  if (teacher) headers['X-Qkv-Teacher'] = teacher;
  if (student) headers['X-Qkv-Student'] = student;
  if (body) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + path, { method: body ? 'POST' : 'GET', headers, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() };
}

async function test(name, body) {
  try { await body(); console.log(`ok   ${name}`); } catch (e) { failed++; console.log(`FAIL ${name}\n${e.stack}`); }
}

function run(...cli) {
  const r = spawnSync(qkv, cli, { env, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`qkv ${cli.join(' ')} ended with ${r.status}: ${r.stderr}`);
  return r.stdout;
}

// 4.1 asks for one scaled score: the question names the cell (s13) and d_k; the student's own S is
// shown with it. Right is S[i, j] / √d_k; forgetting the scaling gives S[i, j].
function scaledScore(exercise) {
  const cell = exercise.question.match(/\bs(\d)(\d)\b/);
  const dk = exercise.question.match(/d_k\s*=\s*(\d+)/);
  assert.ok(cell && dk, `4.1's question names a cell and d_k: ${exercise.question}`);
  const S = exercise.values.find((v) => v.name === 'S').data;
  const raw = S[cell[1] - 1][cell[2] - 1];
  return { right: raw / Math.sqrt(Number(dk[1])), raw };
}

// The page's width, and the elements that stick out past the screen's right edge (to say why).
const pageWidth = (p) => p.evaluate(() => ({
  width: document.documentElement.scrollWidth,
  out: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
    .slice(0, 5).map((e) => `<${e.tagName.toLowerCase()} class="${e.className}"> to ${Math.round(e.getBoundingClientRect().right)} px`),
}));

const storedToken = (p) => p.evaluate(() => { try { return JSON.parse(localStorage.getItem('qkv-class')).token; } catch { return null; } });

async function joinAs(p, name, withCode = code) {
  await p.goto(`${base}/class?code=${withCode}&lang=en`, { waitUntil: 'networkidle0' });
  await p.waitForSelector('form.join');
  assert.equal(await p.$eval('#join-code', (i) => i.value), withCode, 'the code comes from the link');
  await p.type('#join-name', name);
  await p.click('form.join button[type=submit]');
}

const teacher = await page();
const students = {};   // name → { page, token, exercise (4.1 as the student was shown it), answer }
let room41 = null;     // the teacher's figures for 4.1, as the page showed them

await test('the teacher\'s page shows the code and the join link, and opens lesson 4', async () => {
  await teacher.goto(`${base}/class/teacher?lang=en#t=${token}`, { waitUntil: 'networkidle0' });
  await teacher.waitForFunction((c) => document.querySelector('.code')?.textContent === c, {}, code);
  assert.match(await teacher.$eval('.join-link', (a) => a.textContent), new RegExp(`/class\\?code=${code}`));
  await teacher.$eval('input[name=lesson]', (i) => { i.value = ''; });
  await teacher.type('input[name=lesson]', '4');
  await teacher.click('form.lesson-form button[type=submit]');
  await teacher.waitForFunction(() => /\b4\b/.test(document.querySelector('.where .title').textContent));
  const state = await call('/api/class/state', { teacher: token });
  assert.equal(state.status, 200);
  assert.equal(state.body.lesson, 4);
  assert.equal(state.body.stage, 1);
  // without a token the server says nothing of the class
  assert.equal((await call('/api/class/state')).status, 401);
  assert.ok([401, 403].includes((await call('/api/class/teacher')).status), 'the room needs the teacher\'s token');
});

await test('three students join, each in a browser of their own, and answer 4.1', async () => {
  for (const name of ['ann', 'bob', 'cy']) {
    const p = await page();
    await joinAs(p, name);
    await p.waitForSelector('article.exercise[data-id="4.1"]');
    await p.waitForSelector('.stage-view[data-lesson="4"][data-stage="1"]');
    assert.equal(await p.$eval('#who .me', (s) => s.textContent), name);
    const studentToken = await storedToken(p);
    assert.ok(studentToken, 'the token is kept');
    const mine = await call('/api/class/exercises?lang=en', { student: studentToken });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.lesson, 4);
    const exercise = mine.body.exercises.find((e) => e.id === '4.1');
    // the student's own variant: the numbers `qkv exercise 4.1 --student NAME` shows
    const own = JSON.parse(run('exercise', '4.1', '--format', 'json', '--student', name, '--lang', 'en'));
    assert.deepEqual(exercise.values.map((v) => v.data), own.values.map((v) => v.data), `${name}'s numbers are their own variant's`);
    // and the page shows them: S[1, 1] in the table, to 4 places
    const firstCell = await p.$eval('article.exercise[data-id="4.1"] figure.value[data-name="S"] tbody td', (td) => td.textContent);
    assert.equal(firstCell, exercise.values.find((v) => v.name === 'S').data[0][0].toFixed(4));
    students[name] = { page: p, token: studentToken, exercise };
  }
  const ann = scaledScore(students.ann.exercise);
  const bob = scaledScore(students.bob.exercise);
  assert.ok(Math.abs(bob.raw - bob.right) > 0.05, 'bob\'s unscaled score is far enough from the scaled one to be told apart');
  students.ann.answer = ann.right.toFixed(4);
  students.bob.answer = bob.raw.toFixed(4);
  students.cy.answer = '12345';
  // ann's page asks for its refresh of the exercises (every fifth poll) before she answers, and the
  // reply reaches it after her verdict, carrying the state from before her answer — as a reply that
  // crossed hers on the way does. The page must keep her verdict.
  const stale = await call('/api/class/exercises?lang=en', { student: students.ann.token });
  assert.equal(stale.body.exercises.find((e) => e.id === '4.1').status, 'not tried');
  const held = await new Promise((resolve) => { students.ann.page.holdExercises = resolve; });
  students.ann.page.holdExercises = null;
  for (const name of ['ann', 'bob', 'cy']) {
    const p = students[name].page;
    const field = 'article.exercise[data-id="4.1"] input[name=answer]';
    await p.type(field, students[name].answer);
    await p.click('article.exercise[data-id="4.1"] button.check');
    await p.waitForSelector('article.exercise[data-id="4.1"] .verdict[data-correct]');
  }
  const staleRead = students.ann.page.waitForResponse((r) => r.url().startsWith(base + '/api/class/exercises'));
  await held.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(stale.body) });
  await staleRead;
  await students.ann.page.evaluate(() => new Promise((resolve) => { setTimeout(resolve, 300); }));  // it is read
  const verdict = (name) => students[name].page.$eval('article.exercise[data-id="4.1"] .verdict', (v) => ({
    correct: v.dataset.correct, mistakes: [...v.querySelectorAll('li[data-mistake]')].map((li) => [li.dataset.mistake, li.textContent]),
    text: v.textContent }));
  const a = await verdict('ann'), b = await verdict('bob'), c = await verdict('cy');
  assert.equal(a.correct, 'true', `ann: ${a.text}`);
  assert.equal(b.correct, 'false');
  assert.deepEqual(b.mistakes.map((m) => m[0]), ['no_scale'], `bob's verdict names the mistake: ${b.text}`);
  assert.ok(b.mistakes[0][1].length > 0, 'the mistake is said in words');
  students.bob.mistakeText = b.mistakes[0][1];
  assert.equal(c.correct, 'false');
  assert.deepEqual(c.mistakes, [], 'a number nobody foresaw names no mistake');
  assert.equal(await students.ann.page.$eval('article.exercise[data-id="4.1"]', (e) => e.dataset.status), 'correct');
  await students.bob.page.screenshot({ path: join(shots, 'class-student-verdict-en.png'), fullPage: true });
});

await test('the teacher\'s page shows 3 answered, 1 right and the mistake by name, once', async () => {
  const q = 'article.question[data-id="4.1"]';
  await teacher.waitForFunction((sel) => {
    const card = document.querySelector(sel);
    return card && card.dataset.answered === '3' && card.dataset.right === '1';
  }, { timeout: 10000 }, q);
  const shown = await teacher.$eval(q, (card) => ({
    right: card.querySelector('.right').textContent, answered: card.querySelector('.answered').textContent,
    mistakes: [...card.querySelectorAll('li[data-mistake]')].map((li) => ({ id: li.dataset.mistake, count: li.dataset.count,
      explanation: li.querySelector('.explanation').textContent })) }));
  assert.equal(shown.right, '1');
  assert.equal(shown.answered, '3');
  assert.deepEqual(shown.mistakes.map((m) => [m.id, m.count]), [['no_scale', '1']]);
  assert.equal(shown.mistakes[0].explanation, students.bob.mistakeText, 'the teacher reads the words bob read');
  const rows = await teacher.$$eval('table.student-table tbody tr', (trs) => trs.map((tr) => [tr.querySelector('.name').textContent, tr.dataset.answered, tr.dataset.right]));
  assert.deepEqual(rows.sort(), [['ann', '1', '1'], ['bob', '1', '0'], ['cy', '1', '0']]);
  room41 = { right: 1, answered: 3, mistakes: [{ id: 'no_scale', sheets: 1 }] };
  await teacher.screenshot({ path: join(shots, 'class-teacher-en.png'), fullPage: true });
});

await test('the class\'s export over HTTP gives the teacher\'s figures', async () => {
  const res = await fetch(`${base}/api/class/teacher/export?format=json`, { headers: { 'X-Qkv-Teacher': token } });
  assert.equal(res.status, 200);
  const graded = await res.json();
  const q = graded.questions.find((x) => x.id === '4.1');
  assert.equal(q.right, room41.right);
  assert.equal(q.answered, room41.answered);
  assert.deepEqual(q.mistakes.map((m) => ({ id: m.id, sheets: m.sheets })), room41.mistakes);
  const csv = await fetch(`${base}/api/class/teacher/export?format=csv`, { headers: { 'X-Qkv-Teacher': token } });
  assert.equal(csv.status, 200);
  assert.match(await csv.text(), /ann/);
  assert.ok([401, 403].includes((await fetch(`${base}/api/class/teacher/export?format=csv`)).status), 'no export without the token');
});

await test('the teacher moves a stage on; the students and the projector follow', async () => {
  const present = await page({ width: 1280, height: 720 });
  await present.goto(`${base}/class/present?lang=en#t=${token}`, { waitUntil: 'networkidle0' });
  await present.waitForSelector('.stage-view[data-lesson="4"][data-stage="1"]');
  await teacher.click('.where button.next');
  await present.waitForSelector('.stage-view[data-lesson="4"][data-stage="2"]', { timeout: 10000 });
  await students.cy.page.waitForSelector('.stage-view[data-lesson="4"][data-stage="2"]', { timeout: 10000 });
  await present.screenshot({ path: join(shots, 'class-present-en.png') });
  await present.close();
});

await test('a student who reloads is still in the class, their answer still there', async () => {
  const p = students.bob.page;
  await p.reload({ waitUntil: 'networkidle0' });
  await p.waitForSelector('article.exercise[data-id="4.1"]');
  assert.equal(await p.$('form.join'), null, 'no join form after a reload');
  assert.equal(await p.$eval('#who .me', (s) => s.textContent), 'bob');
  assert.equal(await p.$eval('article.exercise[data-id="4.1"] input[name=answer]', (i) => i.value), students.bob.answer);
  assert.equal(await p.$eval('article.exercise[data-id="4.1"]', (e) => e.dataset.status), 'wrong');
});

await test('the teacher releases 4.1\'s solution and closes it: the students see both', async () => {
  await teacher.click('article.question[data-id="4.1"] button.release-question');
  await teacher.waitForSelector('article.question[data-id="4.1"][data-released="true"]');
  const p = students.cy.page;
  // a student's page looks at the questions' state every few polls
  await p.waitForFunction(() => !document.querySelector('article.exercise[data-id="4.1"] button.solution-button').disabled, { timeout: 20000 });
  await p.click('article.exercise[data-id="4.1"] button.solution-button');
  await p.waitForFunction(() => document.querySelector('article.exercise[data-id="4.1"] .solution .solution-text')?.textContent.length > 0);
  await teacher.click('article.question[data-id="4.1"] button.close-question');
  await teacher.waitForSelector('article.question[data-id="4.1"][data-closed="true"]');
  const late = await call('/api/class/answer', { student: students.cy.token, body: { id: '4.1', answer: '1' } });
  assert.equal(late.status, 409, 'a closed question takes no answer');
  await p.waitForFunction(() => document.querySelector('article.exercise[data-id="4.1"] button.check').disabled, { timeout: 20000 });
});

await test('a wrong code is refused: the page says so and keeps no token', async () => {
  const p = await page();
  const wrong = code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
  await joinAs(p, 'dan', wrong);
  await p.waitForSelector('form.join .error');
  assert.ok((await p.$eval('form.join .error', (e) => e.textContent)).length > 0);
  assert.equal(await p.evaluate(() => localStorage.getItem('qkv-class')), null);
  assert.equal((await call('/api/class/join', { body: { code: wrong, name: 'dan' } })).status, 403);
  await p.close();
});

await test('a name made of HTML is text on the teacher\'s page', async () => {
  const name = '<script>alert(1)</script>';
  const scriptsBefore = await teacher.evaluate(() => document.querySelectorAll('script').length);
  const p = await page();
  await joinAs(p, name);
  await p.waitForSelector('#who .me');
  assert.equal(await p.$eval('#who .me', (s) => s.textContent), name);
  await teacher.waitForFunction((n) => [...document.querySelectorAll('table.student-table .name')].some((td) => td.textContent === n),
    { timeout: 10000 }, name);
  assert.equal(await teacher.evaluate(() => document.querySelectorAll('script').length), scriptsBefore);
  assert.equal(await p.evaluate(() => document.querySelectorAll('script').length), 1);
  await p.close();
});

await test('a phone, 360 px wide, does not scroll sideways', async () => {
  const p = await page({ width: 360, height: 740 });
  await p.emulate({ viewport: { width: 360, height: 740, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
    userAgent: 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36' });
  await joinAs(p, 'pat');
  await p.waitForSelector('article.exercise[data-id="4.1"]');
  await p.waitForSelector('.stage-view .stage-html section.stage');
  const student = await pageWidth(p);
  assert.ok(student.width <= 360, `the page is ${student.width} px wide: ${student.out.join(', ')}`);
  await p.screenshot({ path: join(shots, 'class-phone-en.png'), fullPage: true });
  // the teacher's page on a phone too
  const t = await page({ width: 360, height: 740 });
  await t.goto(`${base}/class/teacher?lang=en#t=${token}`, { waitUntil: 'networkidle0' });
  await t.waitForSelector('article.question');
  const room = await pageWidth(t);
  assert.ok(room.width <= 360, `the teacher's page is ${room.width} px wide: ${room.out.join(', ')}`);
  await t.screenshot({ path: join(shots, 'class-teacher-phone-en.png'), fullPage: true });
  await p.close();
  await t.close();
});

await test('in Chinese, the pages speak Chinese', async () => {
  const p = await page();
  await p.goto(`${base}/class/teacher?lang=zh#t=${token}`, { waitUntil: 'networkidle0' });
  await p.waitForSelector('article.question');
  assert.match(await p.$eval('main', (m) => m.innerText), /[\u4e00-\u9fff]/);
  await p.screenshot({ path: join(shots, 'class-teacher-zh.png'), fullPage: true });
  await p.close();
});

await test('nothing was asked of any address but the server', async () => {
  assert.deepEqual(offServer, []);
});

await browser.close();

await test('stopped with SIGTERM, the class\'s export graded by qkv grade gives the teacher\'s figures', async () => {
  const ended = new Promise((resolve) => server.on('exit', (status, signal) => resolve({ status, signal })));
  server.kill('SIGTERM');
  const { status } = await ended;
  assert.equal(status, 0, 'qkv serve --class ends cleanly on SIGTERM');
  const dir = join(env.XDG_STATE_HOME, 'export');
  const exported = spawnSync(qkv, ['serve', '--class', CLASS, '--export', dir], { env, encoding: 'utf8' });
  assert.equal(exported.status, 0, exported.stderr);
  for (const f of ['assignment.toml', 'class.csv', 'class.json']) assert.ok(existsSync(join(dir, f)), `${f} written`);
  const sheets = readdirSync(join(dir, 'sheets')).filter((f) => f.endsWith('.toml'));
  assert.ok(sheets.length >= 3, `${sheets.length} sheets`);
  // TOML: a string in "…" or '…'
  const bobSheet = sheets.map((f) => readFileSync(join(dir, 'sheets', f), 'utf8')).find((t) => /^student\s*=\s*(["'])bob\1$/m.test(t));
  assert.ok(bobSheet, 'bob has a sheet');
  assert.match(bobSheet, new RegExp(`^(["'])4\\.1\\1\\s*=\\s*(["'])${students.bob.answer.replace('.', '\\.')}\\2$`, 'm'));
  const graded = JSON.parse(run('grade', '--assignment', join(dir, 'assignment.toml'), '--format', 'json', '--lang', 'en', join(dir, 'sheets')));
  const q = graded.questions.find((x) => x.id === '4.1');
  assert.equal(q.right, room41.right, 'right');
  assert.equal(q.answered, room41.answered, 'answered');
  assert.deepEqual(q.mistakes.map((m) => ({ id: m.id, sheets: m.sheets })), room41.mistakes, 'mistakes');
  // and the export's class.json is the same grading
  const own = JSON.parse(readFileSync(join(dir, 'class.json'), 'utf8'));
  assert.deepEqual(own.questions.find((x) => x.id === '4.1'), q);
});

if (server.exitCode === null) server.kill('SIGTERM');
// the class's state and export are kept to look at when something failed
if (failed) console.log(`the class's state and export: ${env.XDG_STATE_HOME}`); else rmSync(env.XDG_STATE_HOME, { recursive: true, force: true });
console.log(`screenshots: ${shots}`);
console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
