#!/usr/bin/env python3
"""A class under load (`qkv serve --class`), and what survives a crash.

    python3 bench/class_load.py --qkv build/src/qkv --state DIR [--students 100] [--answers 20] [--check]

Round one: the server starts on a fresh DIR (XDG_STATE_HOME; removed first), STUDENTS students
join, the teacher opens lessons 3 to 8 (25 exercises), and each student sends ANSWERS answers (numbers,
letters, shapes and matrices of the question's kind, right or wrong alike), spread over SECONDS (50)
as a room sends them: a thread per student, each answer at a random moment of its own slot. It prints
the answers, the errors, the latency's p50 and p99 and the time taken, and checks that the
class's database holds exactly the acknowledged answers: as many rows, and the same
(student, exercise, answer) triples.

Round two: the students send again, as fast as THREADS threads can, the server is killed with SIGKILL about halfway, started
again with the same arguments, and every answer acknowledged before the kill must be in the
database; the teacher's counts (/api/class/teacher) must equal those counted from the database
(each student's last answer per question, as `qkv grade` counts).

The goals (all answers within 60 s, p99 <= 100 ms) are printed. With --check the script exits 1
when a check fails or round one took longer than 60 s times QKV_LOAD_SCALE (default 1; a
sanitizer build is about ten times slower); the p99 goal is reported, never asserted."""
import argparse
import collections
import concurrent.futures
import http.client
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument('--qkv', default='build/src/qkv')
ap.add_argument('--state', required=True, help='XDG_STATE_HOME for the server; removed first')
ap.add_argument('--students', type=int, default=100)
ap.add_argument('--answers', type=int, default=20, help='answers each student sends, per round')
ap.add_argument('--threads', type=int, default=16, help='senders when unpaced (--seconds 0), and for the joins')
ap.add_argument('--seconds', type=float, default=50,
                help='round one spreads each student\'s answers over this many seconds, as a room answers (0: as fast as possible)')
ap.add_argument('--lessons', default='3,4,5,6,7,8', help='the lessons the teacher opens')
ap.add_argument('--check', action='store_true', help='exit 1 when a check fails')
args = ap.parse_args()

CLASS = 'load'
SCALE = float(os.environ.get('QKV_LOAD_SCALE', '1'))
BUDGET_S = 60 * SCALE
failures = []
running = []  # every server started, stopped at the end whatever happens


def fail(what):
    failures.append(what)
    print(f'FAIL {what}', flush=True)


# ---- the server ---------------------------------------------------------------------------------
class Server:
    """qkv serve --class, on a free port; the address, code and teacher token read from its stdout."""

    def __init__(self):
        env = dict(os.environ, XDG_STATE_HOME=args.state)
        running.append(self)
        self.proc = subprocess.Popen(
            [args.qkv, 'serve', '--class', CLASS, '--port', '0', '--lang', 'en',
             '--requests-per-minute', '1000000', '--answers-per-minute', '1000'],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        found = {}
        said = []
        deadline = time.monotonic() + 60
        # Read until the three lines are there; then a thread keeps reading, so that the server
        # never blocks on a full pipe.
        while len(found) < 3 and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            said.append(line)
            if m := re.search(r'http://127\.0\.0\.1:(\d+)/', line):
                found.setdefault('port', int(m.group(1)))
            if m := re.search(r'/class\?code=([ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6})', line):
                found['code'] = m.group(1)
            if m := re.search(r'/class/teacher#t=([0-9a-f]{32})', line):
                found['token'] = m.group(1)
        if len(found) < 3:
            self.proc.kill()
            sys.exit(f'qkv serve --class printed no address, code and teacher link: {"".join(said)}'
                     f'{self.proc.stderr.read()}')
        self.port, self.code, self.token = found['port'], found['code'], found['token']
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def request(self, method, path, body=None, headers=None, timeout=30):
        """(status, parsed JSON or None, seconds taken)"""
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout)
        data = None if body is None else json.dumps(body).encode()
        h = dict(headers or {})
        if data is not None:
            h['Content-Type'] = 'application/json'
        t0 = time.perf_counter()
        try:
            conn.request(method, path, body=data, headers=h)
            res = conn.getresponse()
            raw = res.read()
        finally:
            conn.close()
        took = time.perf_counter() - t0
        try:
            return res.status, json.loads(raw), took
        except ValueError:
            return res.status, None, took

    def teacher(self, method, path, body=None):
        status, answer, _ = self.request(method, path, body, {'X-Qkv-Teacher': self.token})
        if status != 200:
            raise RuntimeError(f'{method} {path}: {status} {answer}')
        return answer

    def stop(self):
        """SIGTERM, as Ctrl-C: True when it ended cleanly (status 0) within 20 s."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(20) == 0
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False


# ---- the database -------------------------------------------------------------------------------
def database_answers():
    """Every stored answer as (student name, exercise, given, result), in the order stored. The
    answers table names its student by a key into another table: found from the schema, so that
    the script does not depend on the column's name."""
    path = os.path.join(args.state, 'qkv', 'classes', f'{CLASS}.sqlite')
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True, timeout=30)
    try:
        columns = [row[1] for row in db.execute('PRAGMA table_info(answers)')]
        keys = db.execute('PRAGMA foreign_key_list(answers)').fetchall()
        # (id, seq, table, from, to, ...): the key that leads to a table with a name column
        for key in keys:
            table, here, there = key[2], key[3], key[4]
            their = [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]
            if 'name' in their:
                there = there or 'rowid'
                rows = db.execute(f'SELECT s.name, a.exercise, a.given, a.result FROM answers a '
                                  f'JOIN "{table}" s ON a."{here}" = s."{there}" ORDER BY a.rowid').fetchall()
                return rows
        if 'name' in columns or 'student' in columns:
            col = 'name' if 'name' in columns else 'student'
            return db.execute(f'SELECT "{col}", exercise, given, result FROM answers ORDER BY rowid').fetchall()
        raise RuntimeError(f'cannot tell the student of an answer: answers has {columns}, keys {keys}')
    finally:
        db.close()


def counts_from(rows):
    """Per question, as qkv grade counts a class: each student's last answer; right, answered."""
    last = {}
    for name, exercise, _given, result in rows:
        last[(name, exercise)] = result
    out = collections.defaultdict(lambda: {'right': 0, 'answered': 0})
    for (name, exercise), result in last.items():
        out[exercise]['answered'] += 1
        out[exercise]['right'] += result == 'correct'
    return out


# ---- answers ----------------------------------------------------------------------------------
def an_answer(kind, rng):
    """An answer of the question's kind, which the server can read; right or wrong is chance."""
    if kind == 'choice':
        return rng.choice('ABCD')
    if kind == 'shape':
        return f'[{rng.randint(1, 100)}, {rng.choice([3, 4, 8, 64, 512])}]'
    if kind == 'matrix':
        cols = rng.choice([3, 4])
        return '[' + ', '.join(f'{rng.uniform(-1, 1):.3f}' for _ in range(cols)) + ']'
    return f'{rng.uniform(-2, 2):.3f}'


class Round:
    """One round of answers: what was acknowledged (200, or 422 for an answer recorded unreadable),
    the errors, each answer's latency."""

    def __init__(self, name):
        self.name = name
        self.acked = []       # (student, exercise, given)
        self.latencies = []   # seconds
        self.by_exercise = collections.defaultdict(list)  # exercise -> seconds, to name the slow ones
        self.errors = []      # one line each
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.elapsed = 0.0

    def send(self, server, student, token, exercise, given):
        try:
            status, answer, took = server.request('POST', '/api/class/answer', {'id': exercise, 'answer': given},
                                                  {'X-Qkv-Student': token})
        except OSError as e:
            with self.lock:
                self.errors.append(f'{student} {exercise}: {e}')
            return
        with self.lock:
            if status in (200, 422):
                self.acked.append((student, exercise, given))
                self.latencies.append(took)
                self.by_exercise[exercise].append(took)
            else:
                self.errors.append(f'{student} {exercise}: {status} {answer}')

    def report(self):
        ms = sorted(t * 1000 for t in self.latencies)
        p50 = statistics.median(ms) if ms else float('nan')
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))] if ms else float('nan')
        rate = len(ms) / self.elapsed if self.elapsed else 0
        print(f'{self.name}: {len(self.acked)} answers acknowledged, {len(self.errors)} errors, '
              f'p50 {p50:.1f} ms, p99 {p99:.1f} ms, {self.elapsed:.1f} s ({rate:.0f} answers/s)', flush=True)
        for e in self.errors[:5]:
            print(f'  error: {e}')
        slow = sorted(self.by_exercise.items(), key=lambda kv: -statistics.median(kv[1]))[:5]
        print('  slowest exercises (median ms): ' + ', '.join(f'{x} {statistics.median(t) * 1000:.0f}' for x, t in slow))
        return p50, p99


def run_round(server, rnd, students, questions, seed, seconds=0.0):
    """Each student sends args.answers answers, one after another. Paced (seconds > 0), as a class
    answers: every student a thread of their own, their answers spread over `seconds` (each in its
    own slot of seconds / answers, at a random moment of it), so that the server meets the rate of
    a room, not a flood. Unpaced, as fast as a pool of args.threads threads can send them."""
    ids = list(questions)
    t0 = time.perf_counter()

    def student_task(k, name, token):
        rng = random.Random(seed * 100003 + k)
        order = ids[:]
        rng.shuffle(order)
        slot = seconds / args.answers if seconds > 0 else 0.0
        for n in range(args.answers):
            if slot:
                wait = t0 + (n + rng.random()) * slot - time.perf_counter()
                if wait > 0 and rnd.stop.wait(wait):
                    return
            if rnd.stop.is_set():
                return
            exercise = order[n % len(order)]
            rnd.send(server, name, token, exercise, an_answer(questions[exercise], rng))

    with concurrent.futures.ThreadPoolExecutor(len(students) if seconds > 0 else args.threads) as pool:
        for f in [pool.submit(student_task, k, name, token) for k, (name, token) in enumerate(students)]:
            f.result()
    rnd.elapsed = time.perf_counter() - t0


def main():
    shutil.rmtree(args.state, ignore_errors=True)
    os.makedirs(args.state)
    server = Server()
    print(f'class {CLASS!r} on port {server.port}, code {server.code}', flush=True)

    # the students join, from the pool too
    def join(k):
        name = f'student {k + 1:03d}'
        status, answer, _ = server.request('POST', '/api/class/join', {'code': server.code, 'name': name})
        if status != 201:
            raise RuntimeError(f'join {name}: {status} {answer}')
        return name, answer['token']

    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
        students = list(pool.map(join, range(args.students)))
    print(f'{len(students)} students joined in {time.perf_counter() - t0:.1f} s', flush=True)

    # the teacher opens the lessons one after another; at each, a student's page reads its
    # exercises (ids and kinds); every lesson opened stays answerable
    questions = {}
    for lesson in (int(x) for x in args.lessons.split(',')):
        server.teacher('POST', '/api/class/teacher/move', {'lesson': lesson, 'stage': 1})
        status, got, _ = server.request('GET', '/api/class/exercises?lang=en', headers={'X-Qkv-Student': students[0][1]})
        if status != 200:
            raise RuntimeError(f'exercises of lesson {lesson}: {status} {got}')
        questions.update({e['id']: e['kind'] for e in got['exercises']})
    print(f'{len(questions)} questions open: {" ".join(questions)}')
    if len(questions) < 20:
        fail(f'only {len(questions)} questions open after the teacher moved through lessons {args.lessons}')
        return 1 if args.check else 0

    # ---- round one: everything acknowledged is stored, and nothing else ----
    one = Round('round one')
    run_round(server, one, students, questions, seed=1, seconds=args.seconds)
    _, p99 = one.report()
    print(f'goals: {args.students * args.answers} answers within {BUDGET_S:.0f} s: '
          f'{"met" if one.elapsed <= BUDGET_S else "MISSED"} ({one.elapsed:.1f} s); '
          f'p99 <= 100 ms: {"met" if p99 <= 100 else "missed"} ({p99:.1f} ms; reported, not asserted)')
    if one.errors:
        fail(f'round one: {len(one.errors)} errors')
    if len(one.acked) != args.students * args.answers and not one.errors:
        fail(f'round one: {len(one.acked)} answers acknowledged of {args.students * args.answers}')
    if one.elapsed > BUDGET_S:
        fail(f'round one took {one.elapsed:.1f} s, more than {BUDGET_S:.0f} s')
    rows = database_answers()
    stored = collections.Counter((name, exercise, given) for name, exercise, given, _ in rows)
    acked = collections.Counter(one.acked)
    print(f'database: {len(rows)} answers stored; {len(one.acked)} acknowledged')
    if len(rows) != len(one.acked):
        fail(f'round one: the database holds {len(rows)} answers, {len(one.acked)} were acknowledged')
    if stored != acked:
        missing, extra = acked - stored, stored - acked
        fail(f'round one: {sum(missing.values())} acknowledged answers not stored (e.g. {list(missing)[:2]}), '
             f'{sum(extra.values())} stored that were not acknowledged (e.g. {list(extra)[:2]})')

    # ---- round two: SIGKILL halfway; what was acknowledged is there after a restart ----
    two = Round('round two')
    half = args.students * args.answers // 2

    def killer():
        while not two.stop.is_set():
            with two.lock:
                if len(two.acked) >= half:
                    break
            time.sleep(0.005)
        server.proc.send_signal(signal.SIGKILL)
        two.stop.set()  # the students stop sending: the server is gone

    watcher = threading.Thread(target=killer)
    watcher.start()
    run_round(server, two, students, questions, seed=2)
    two.stop.set()
    watcher.join()
    server.proc.wait()
    two.report()
    print(f'round two: killed with SIGKILL after {len(two.acked)} acknowledged answers '
          f'({len(two.errors)} refused or unanswered around the kill)', flush=True)

    server = Server()  # the same arguments, the same state: the class resumes
    rows = database_answers()
    stored = collections.Counter((name, exercise, given) for name, exercise, given, _ in rows)
    acked = collections.Counter(one.acked) + collections.Counter(two.acked)
    lost = acked - stored
    print(f'after the restart: {len(rows)} answers stored, {sum(acked.values())} were acknowledged, '
          f'{sum(lost.values())} acknowledged answers lost')
    if lost:
        fail(f'{sum(lost.values())} acknowledged answers are not in the database after kill -9 and a restart '
             f'(e.g. {list(lost)[:3]})')

    # the teacher's counts are the database's, counted as qkv grade counts
    room = server.teacher('GET', '/api/class/teacher')
    by_db = counts_from(rows)
    wrong = []
    listed = {q['id'] for q in room['questions']}
    for exercise in sorted(set(by_db) - listed):
        wrong.append(f'{exercise}: answered {by_db[exercise]["answered"]} times in the database, not on the teacher\'s page')
    for q in room['questions']:
        want = by_db.get(q['id'], {'right': 0, 'answered': 0})
        if (q['right'], q['answered']) != (want['right'], want['answered']):
            wrong.append(f"{q['id']}: teacher {q['right']}/{q['answered']}, database {want['right']}/{want['answered']}")
    if room.get('answers') != len(rows):
        wrong.append(f"answers: teacher {room.get('answers')}, database {len(rows)}")
    names = {s['name'] for s in room['students']}
    if names != {name for name, _ in students}:
        wrong.append(f'students: teacher {len(names)}, joined {len(students)}')
    print(f'teacher counts vs database: {len(room["questions"])} questions, '
          f'{"equal" if not wrong else f"{len(wrong)} differ"}')
    for line in wrong[:10]:
        print(f'  {line}')
    if wrong:
        fail(f'the teacher\'s counts differ from the database\'s in {len(wrong)} places')

    if not server.stop():
        fail('the restarted server did not stop cleanly on SIGTERM')
    print('all checks passed' if not failures else f'{len(failures)} checks failed', flush=True)
    return 1 if failures and args.check else 0


if __name__ == '__main__':
    try:
        status = main()
    finally:
        for s in running:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
    sys.exit(status)
