// qkv serve in a real browser: Debian's chromium, headless, driven by puppeteer-core. The page may
// load nothing but what the server serves (every other request is cut off and counted); the tests
// step a lesson with the keyboard, point at a cell and hold the tooltip's terms to the engine's
// JSON, type a sentence, train a small model live, and open every page in zh and en. Screenshots
// go to QKV_SCREENSHOTS (a scratch folder when unset). Exit 0 passed, 1 failed, 77 skipped (meson).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
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

// the server, on a free port it prints
const server = spawn(process.env.QKV_BIN || 'build/src/qkv', ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
const base = await new Promise((resolve, reject) => {
  let said = '';
  server.stdout.on('data', (d) => { said += d; const m = said.match(/http:\/\/127\.0\.0\.1:(\d+)\//); if (m) resolve(m[0].slice(0, -1)); });
  server.on('exit', (code) => reject(new Error(`qkv serve ended with ${code}: ${said}`)));
  setTimeout(() => reject(new Error('qkv serve printed no address in 30 s')), 30000);
});

const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--lang=en-US'] });
const offServer = [];
let failed = 0;

async function page(width = 1280, height = 900) {
  const p = await browser.newPage();
  await p.setViewport({ width, height });
  await p.setRequestInterception(true);
  p.on('request', (r) => {
    if (r.url().startsWith(base + '/') || r.url().startsWith('data:')) r.continue();
    else { offServer.push(r.url()); r.abort(); }
  });
  p.on('pageerror', (e) => { console.log('page error:', e.message); failed++; });
  return p;
}

async function json(path) {
  const res = await fetch(base + path);
  assert.equal(res.status, 200, path);
  return res.json();
}

async function test(name, body) {
  try { await body(); console.log(`ok   ${name}`); } catch (e) { failed++; console.log(`FAIL ${name}\n${e.stack}`); }
}

// The stage index that shows `name` in a lesson's trace.
const stageShowing = (trace, name) => trace.stages.find((s) => s.values.some((v) => v.name === name)).index;

await test('lesson 3: step with keys, point at S[2, 3], and the terms add up to the engine\'s cell', async () => {
  const trace = await json('/api/lesson/3?format=json&lang=en');
  const target = stageShowing(trace, 'S');
  const p = await page();
  await p.goto(`${base}/lesson/3?lang=en`, { waitUntil: 'networkidle0' });
  await p.waitForSelector('.stage-html section.stage');
  for (let k = 1; k < target; k++) await p.keyboard.press('n');
  await p.waitForFunction((t) => document.querySelector('.count').textContent.includes(`${t}/`), {}, target);
  assert.match(await p.url(), new RegExp(`stage=${target}`));  // the address holds the stage
  await p.keyboard.press('b');
  await p.waitForFunction((t) => document.querySelector('.count').textContent.includes(`${t - 1}/`), {}, target);
  await p.keyboard.press('n');
  const cell = `figure.value[data-name="S"] td[data-i="2"][data-j="3"]`;
  await p.waitForSelector(cell);
  await p.hover(cell);
  await p.waitForFunction(() => !document.getElementById('tip').hidden && document.getElementById('tip').dataset.name === 'S');
  const tip = await p.$eval('#tip', (t) => t.textContent);
  await p.screenshot({ path: join(shots, 'lesson-3-hover-en.png') });
  const S = trace.stages[target - 1].values.find((v) => v.name === 'S').data;
  const Q = trace.stages.flatMap((s) => s.values).find((v) => v.name === 'Q').data;
  const K = trace.stages.flatMap((s) => s.values).find((v) => v.name === 'K').data;
  const byHand = Q[1].reduce((sum, q, t) => sum + q * K[2][t], 0);  // q_2 · k_3 worked here
  const lines = tip.split('\n');
  assert.match(lines[0], /^S\[2, 3\]/);
  // the written terms are the trace's numbers to 4 places, and what they come to is the cell
  const terms = [...lines.find((l) => l.includes('×')).matchAll(/(-?\d+\.\d+) × (-?\d+\.\d+)/g)];
  assert.equal(terms.length, Q[1].length);
  terms.forEach((m, t) => {
    assert.ok(Math.abs(parseFloat(m[1]) - Q[1][t]) <= 5e-5, `q_2,${t + 1}`);
    assert.ok(Math.abs(parseFloat(m[2]) - K[2][t]) <= 5e-5, `k_3,${t + 1}`);
  });
  const total = parseFloat(lines[lines.length - 1].replace('= ', ''));
  assert.ok(Math.abs(total - byHand) <= 5e-5, `${total} vs ${byHand}`);
  assert.ok(Math.abs(total - S[1][2]) <= 5e-5, `${total} vs S[2,3] = ${S[1][2]}`);
  await p.close();
});

await test('type a sentence: the heatmap is the engine\'s for that sentence', async () => {
  const sentence = 'the cat sat on the mat';
  const trace = await json(`/api/lesson/5?format=json&lang=en&tokens=${encodeURIComponent(sentence)}`);
  const stage = stageShowing(trace, 'A');
  const A = trace.stages[stage - 1].values.find((v) => v.name === 'A').data;
  const p = await page();
  await p.goto(`${base}/lesson/5?lang=en&stage=${stage}`, { waitUntil: 'networkidle0' });
  await p.waitForSelector('figure.value[data-name="A"]');
  const before = await p.$eval('figure.value[data-name="A"] td[data-i="1"][data-j="1"]', (td) => td.textContent);
  await p.type('input[name=tokens]', sentence);
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => document.querySelectorAll('figure.value[data-name="A"] tbody tr').length === 6);
  const shown = await p.$$eval('figure.value[data-name="A"] td[data-i]', (tds) => tds.map((td) => [+td.dataset.i, +td.dataset.j, td.textContent]));
  assert.equal(shown.length, 36);
  for (const [i, j, text] of shown) assert.equal(text, A[i - 1][j - 1].toFixed(4), `A[${i}, ${j}]`);
  assert.notEqual(before, shown[0][2]);
  assert.match(await p.url(), /tokens=the/);
  await p.screenshot({ path: join(shots, 'lesson-5-sentence-en.png'), fullPage: true });

  // the same sentence on other random weights: a seed and a width, typed into the form
  const sized = await json(`/api/lesson/5?format=json&lang=en&tokens=${encodeURIComponent(sentence)}&seed=9&d_model=8`);
  const A9 = sized.stages[stage - 1].values.find((v) => v.name === 'A').data;
  await p.click('details.sizes summary');
  await p.type('input[name=seed]', '9');
  await p.type('input[name=d_model]', '8');
  await p.click('form.run button[type=submit]');
  await p.waitForFunction((want) => {
    const td = document.querySelector('figure.value[data-name="A"] td[data-i="1"][data-j="1"]');
    return td && td.textContent === want;
  }, { timeout: 20000 }, A9[0][0].toFixed(4));
  const shown9 = await p.$$eval('figure.value[data-name="A"] td[data-i]', (tds) => tds.map((td) => [+td.dataset.i, +td.dataset.j, td.textContent]));
  for (const [i, j, text] of shown9) assert.equal(text, A9[i - 1][j - 1].toFixed(4), `seed 9: A[${i}, ${j}]`);
  assert.match(await p.url(), /seed=9/);
  assert.match(await p.url(), /d_model=8/);
  await p.close();
});

await test('train live: the loss falls and the heads redraw', async () => {
  const p = await page();
  await p.goto(`${base}/train?lang=en`, { waitUntil: 'networkidle0' });
  await p.$eval('input[name=steps]', (i) => { i.value = '300'; });
  await p.click('button[type=submit]');
  await p.waitForSelector('.heads canvas');
  await p.waitForSelector('.result[data-final]', { timeout: 120000 });
  const final = JSON.parse(await p.$eval('.result', (r) => r.dataset.final));
  assert.equal(final.steps.length, 300);
  assert.ok(final.steps[299].loss < final.steps[0].loss, 'the loss fell');
  const canvases = await p.$$eval('.heads canvas', (cs) => cs.length);
  assert.equal(canvases, final.config.layers * final.config.heads);
  const points = await p.$eval('svg.loss polyline', (l) => l.getAttribute('points').split(' ').length);
  assert.ok(points > 2, 'the loss curve redrew');
  await p.screenshot({ path: join(shots, 'train-en.png'), fullPage: true });
  await p.close();
});

await test('every page in zh and en, and the projector view', async () => {
  for (const lang of ['zh', 'en']) {
    const p = await page();
    for (const path of ['/', '/lesson/1', '/lesson/8', '/train', '/present/3']) {
      await p.goto(`${base}${path}?lang=${lang}`, { waitUntil: 'networkidle0' });
      await p.waitForFunction(() => document.querySelector('main').children.length > 0 && !document.querySelector('main .hint:only-child'));
      assert.equal(await p.$('.error'), null, `${path} ${lang} shows an error`);
      const text = await p.$eval('main', (m) => m.innerText);
      if (lang === 'zh') assert.match(text, /[\u4e00-\u9fff]/, `${path} in zh has Chinese`);
      await p.screenshot({ path: join(shots, `${path.replace(/\//g, '_') || 'home'}-${lang}.png`) });
    }
    await p.close();
  }
  const phone = await page(390, 844);
  await phone.goto(`${base}/lesson/6?lang=zh`, { waitUntil: 'networkidle0' });
  await phone.screenshot({ path: join(shots, 'lesson-6-phone-zh.png') });
  await phone.close();
});

await test('nothing was asked of any address but the server', async () => {
  assert.deepEqual(offServer, []);
});

await browser.close();
server.kill('SIGTERM');
console.log(`screenshots: ${shots}`);
console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
