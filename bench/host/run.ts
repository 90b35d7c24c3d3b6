/**
 * bench/host: invocation throughput of an echo operation through the WoA envelope endpoint
 * (`POST /agents/echo/invoke`) of an @agentry/host server, against a bare Node `http` server answering the same
 * JSON, measured in the same run. Each server runs in its own process; this process generates the load with an
 * undici pool (keep-alive, CONCURRENCY requests in flight). Rounds alternate bare/host so machine noise hits both.
 * Target (issue 4): host ≥ 60 % of the bare server. Prints figures; asserts nothing. Beside the rates it prints
 * each server's CPU time per request (asked of the server over IPC), which other work on the machine disturbs less
 * than throughput does.
 *
 *   npm run bench:host            human-readable
 *   npm run bench:host -- --json  machine-readable
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const TARGET_RATIO = 0.6;
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const ROUND_MS = Number(process.env['BENCH_MS'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const json = process.argv.includes('--json');
const body = JSON.stringify({ agent: 'echo', operation: 'echo', input: { message: 'hello, agents' } });

interface Server {
  url: URL;
  child: ChildProcess;
}

async function start(mode: 'host' | 'bare'): Promise<Server> {
  const script = fileURLToPath(new URL('./server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, mode], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  return { url: new URL(line), child };
}

/** The server's CPU time so far (user + system), in microseconds. */
async function cpuMicros(server: Server): Promise<number> {
  server.child.send('cpu');
  const [usage] = (await once(server.child, 'message')) as [NodeJS.CpuUsage];
  return usage.user + usage.system;
}

interface Round {
  requestsPerSecond: number;
  /** The server's CPU time per request. */
  cpuMicrosPerRequest: number;
}

/** Requests per second over `ms`, CONCURRENCY in flight, every answer read and checked. */
async function load(server: Server, ms: number): Promise<Round> {
  const url = server.url;
  const pool = new Pool(url.origin, { connections: CONCURRENCY, pipelining: 1 });
  let done = 0;
  let failed = 0;
  const deadline = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      const response = await pool.request({
        method: 'POST',
        path: url.pathname,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200 || !text.includes('hello, agents')) failed++;
      done++;
    }
  };
  const cpuBefore = await cpuMicros(server);
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = performance.now() - started;
  const cpu = (await cpuMicros(server)) - cpuBefore;
  await pool.close();
  if (failed > 0) throw new Error(`${failed} of ${done} requests to ${url} failed`);
  return { requestsPerSecond: (done * 1000) / elapsed, cpuMicrosPerRequest: cpu / done };
}

const bare = await start('bare');
const host = await start('host');
try {
  await load(bare, 500);
  await load(host, 500);
  const bareRounds: Round[] = [];
  const hostRounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bareRounds.push(await load(bare, ROUND_MS));
    hostRounds.push(await load(host, ROUND_MS));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const bareRates = bareRounds.map((round) => round.requestsPerSecond);
  const hostRates = hostRounds.map((round) => round.requestsPerSecond);
  const ratios = hostRates.map((rate, i) => rate / bareRates[i]!);
  const bareCpu = median(bareRounds.map((round) => round.cpuMicrosPerRequest));
  const hostCpu = median(hostRounds.map((round) => round.cpuMicrosPerRequest));
  const result = {
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    bareRequestsPerSecond: Math.round(median(bareRates)),
    hostRequestsPerSecond: Math.round(median(hostRates)),
    bareCpuMicrosPerRequest: Number(bareCpu.toFixed(1)),
    hostCpuMicrosPerRequest: Number(hostCpu.toFixed(1)),
    ratio: Number(median(ratios).toFixed(3)),
    ratioPerRound: ratios.map((ratio) => Number(ratio.toFixed(3))),
    target: TARGET_RATIO,
    met: median(ratios) >= TARGET_RATIO,
  };
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(
      `bench/host — echo through POST /agents/echo/invoke, ${CONCURRENCY} in flight, ${ROUNDS} rounds of ${ROUND_MS} ms\n`,
    );
    process.stdout.write(
      `  bare node:http     ${result.bareRequestsPerSecond.toLocaleString('en')} req/s, ${result.bareCpuMicrosPerRequest} µs CPU/request\n`,
    );
    process.stdout.write(
      `  @agentry/host      ${result.hostRequestsPerSecond.toLocaleString('en')} req/s, ${result.hostCpuMicrosPerRequest} µs CPU/request\n`,
    );
    process.stdout.write(
      `  host / bare        ${(result.ratio * 100).toFixed(1)} % (per round: ${result.ratioPerRound.map((r) => `${(r * 100).toFixed(0)} %`).join(', ')}) — target ≥ ${TARGET_RATIO * 100} %: ${result.met ? 'met' : 'NOT met'}\n`,
    );
  }
} finally {
  bare.child.kill();
  host.child.kill();
}
