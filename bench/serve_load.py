#!/usr/bin/env python3
"""qkv serve under load: CLIENTS visitors (threads, each a connection of its own), each loading
lessons on a sentence of its own, one request after another, for SECONDS. Prints how many
requests were answered, the errors (any status but 200, or no answer), the latency's p50 and p99
(per kind of request), and the server's memory: its peak resident set (VmHWM) and at the end (VmRSS).

    python3 bench/serve_load.py --qkv build/src/qkv [--clients 50] [--seconds 30] [--lessons 1,3,5,8]

One client on lesson 8 alone (--clients 1 --lessons 8) is the server's own time for a 64-token
lesson 8, one request after another.

The server runs with --requests-per-minute high enough for one address to stand for every client
(the load comes from 127.0.0.1 alone). A benchmark: it prints figures and passes on no time."""
import argparse
import http.client
import random
import re
import statistics
import subprocess
import threading
import time
import urllib.parse

ap = argparse.ArgumentParser()
ap.add_argument('--qkv', default='build/src/qkv')
ap.add_argument('--clients', type=int, default=50)
ap.add_argument('--seconds', type=float, default=30)
ap.add_argument('--lessons', default='1,3,5,8')
ap.add_argument('--tokens', type=int, default=64, help='tokens in each sentence of the lesson-8 requests')
args = ap.parse_args()

server = subprocess.Popen([args.qkv, 'serve', '--port', '0', '--requests-per-minute', '100000000',
                           '--connections', str(max(args.clients + 8, 64))],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = server.stdout.readline()
port = int(re.search(r'127\.0\.0\.1:(\d+)', line).group(1))
words = ['苹果', '很', '甜', 'the', 'cat', 'sat', 'on', 'mat', '我', '爱', '吃', 'attention', 'is', 'all', 'you', 'need']
lessons = [int(x) for x in args.lessons.split(',')]
latencies = {}   # kind -> [seconds]
errors = []
lock = threading.Lock()
stop_at = time.monotonic() + args.seconds


def client(k):
    rng = random.Random(k)
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
    while time.monotonic() < stop_at:
        lesson = rng.choice(lessons)
        n = args.tokens if lesson == 8 else rng.randint(3, 12)
        sentence = ' '.join(rng.choice(words) for _ in range(n))
        kind = rng.choice(['page', 'json', 'cell'])
        q = {'tokens': sentence, 'seed': str(rng.randint(0, 1000)), 'lang': rng.choice(['zh', 'en'])}
        if kind == 'cell':
            q.update({'lesson': '3', 'stage': '3', 'name': 'S', 'i': '1', 'j': '2'})
            path = '/api/cell?' + urllib.parse.urlencode(q)
        else:
            if kind == 'json':
                q['format'] = 'json'
            else:
                q['stage'] = '1'  # the page asks for one stage's HTML at a time, the first one first
            path = f'/api/lesson/{lesson}?' + urllib.parse.urlencode(q)
        t0 = time.monotonic()
        try:
            conn.request('GET', path)
            res = conn.getresponse()
            res.read()
            status = res.status
        except Exception as e:  # noqa: BLE001 - every failure is an error to count
            status = repr(e)
            conn.close()
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
        dt = time.monotonic() - t0
        with lock:
            if status == 200:
                latencies.setdefault(f'{kind} lesson {lesson}' if kind != 'cell' else 'cell', []).append(dt)
            else:
                errors.append((path[:80], status))


def memory(field):
    for row in open(f'/proc/{server.pid}/status'):
        if row.startswith(field):
            return row.split(':')[1].strip()
    return '?'


threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
t0 = time.monotonic()
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed = time.monotonic() - t0
peak, now = memory('VmHWM'), memory('VmRSS')
server.terminate()
server.wait(timeout=30)

total = sum(len(v) for v in latencies.values())
print(f'qkv serve: {args.clients} clients for {args.seconds:.0f} s: {total} answered ({total / elapsed:.0f}/s), '
      f'{len(errors)} errors')
for kind, xs in sorted(latencies.items()):
    xs.sort()
    p99 = xs[min(len(xs) - 1, int(0.99 * len(xs)))]
    print(f'  {kind:<14} {len(xs):6d}  p50 {statistics.median(xs) * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms')
allx = sorted(x for xs in latencies.values() for x in xs)
if allx:
    print(f'  {"all":<14} {len(allx):6d}  p50 {statistics.median(allx) * 1000:7.1f} ms   '
          f'p99 {allx[min(len(allx) - 1, int(0.99 * len(allx)))] * 1000:7.1f} ms')
print(f'server memory: peak {peak} (VmHWM), at the end {now} (VmRSS)')
for path, status in errors[:5]:
    print(f'  error: {status} {path}')
raise SystemExit(1 if errors else 0)
