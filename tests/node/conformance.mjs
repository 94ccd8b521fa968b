#!/usr/bin/env node
// conformance.mjs runs the official MCP conformance suite
// (@modelcontextprotocol/conformance) against a running server, one scenario
// at a time, and sums up each scenario as a row of a table.
//
// Usage:
//   node conformance.mjs [options] <url> [scenario...]
//
// With no scenario named, every server scenario the suite lists is run.
//
// Options:
//   --required LIST  scenarios (comma or space separated) whose failure makes the
//                    exit status 1. Default: the scenarios named on the command
//                    line; when none are named, $CONFORMANCE_REQUIRED, or else
//                    the core list below. "none" requires nothing.
//   --strict         a WARNING in a required scenario counts as a failure.
//   --out DIR        keep the suite's checks.json files under DIR.
//   --json FILE      also write the results as JSON to FILE; "-" writes the JSON
//                    to stdout and the table to stderr.
//   --verbose        print the suite's own output for every scenario.
//   --timeout MS     limit for one run of the suite (default 120000): the whole
//                    suite when no scenario is named, else each named scenario.
//   --jobs N         named scenarios run at once (default 2).
//
// A scenario's result is FAIL when one of its checks is a FAILURE, ERROR when the
// suite produced no checks for it (it crashed or timed out), WARN when it has
// warnings but no failure, PASS when it has successes only, and NONE when it
// recorded informational checks only.
//
// Exit status: 0 when every required scenario passed, 1 when one did not, 2 on
// a usage error or when the suite itself could not be run.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The scenarios an mcpdoor server (tools only, over Streamable HTTP) must pass.
const CORE_REQUIRED = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
];

const here = dirname(fileURLToPath(import.meta.url));
const suiteBin = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

function usage(message) {
  if (message) process.stderr.write(`conformance: ${message}\n`);
  process.stderr.write(
    'usage: conformance.mjs [--required LIST] [--strict] [--out DIR] [--json FILE|-] [--verbose] [--timeout MS] [--jobs N] <url> [scenario...]\n',
  );
  process.exit(2);
}

function splitList(s) {
  return String(s)
    .split(/[\s,]+/)
    .filter(Boolean);
}

function parseArgs(argv) {
  const opts = { strict: false, verbose: false, timeoutMs: 120_000, jobs: 2, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--required': opts.required = value(); break;
      case '--strict': opts.strict = true; break;
      case '--out': opts.out = value(); break;
      case '--json': opts.json = value(); break;
      case '--verbose': opts.verbose = true; break;
      case '--timeout': opts.timeoutMs = Number(value()); break;
      case '--jobs': opts.jobs = Number(value()); break;
      case '-h': case '--help': usage(); break;
      default:
        if (a.startsWith('--')) usage(`unknown option ${a}`);
        opts.positional.push(a);
    }
  }
  if (opts.positional.length === 0) usage('missing <url>');
  if (!(opts.timeoutMs > 0)) usage('--timeout must be a positive number of milliseconds');
  if (!Number.isInteger(opts.jobs) || opts.jobs < 1) usage('--jobs must be a positive integer');
  [opts.url, ...opts.scenarios] = opts.positional;
  try {
    new URL(opts.url);
  } catch {
    usage(`not a URL: ${opts.url}`);
  }
  return opts;
}

function listServerScenarios() {
  const r = spawnSync(process.execPath, [suiteBin, 'list', '--server'], { encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`conformance: listing scenarios failed:\n${r.stdout}${r.stderr}`);
    process.exit(2);
  }
  return r.stdout
    .split('\n')
    .map((line) => /^\s+-\s+(\S+)/.exec(line))
    .filter(Boolean)
    .map((m) => m[1]);
}

// runSuite runs the suite's CLI with args, keeping its combined output.
function runSuite(args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [suiteBin, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output });
    });
  });
}

// checksByScenario reads the checks.json files the suite wrote under dir, in
// folders named server-<scenario>-<timestamp>.
function checksByScenario(dir) {
  const found = new Map();
  if (!existsSync(dir)) return found;
  for (const d of readdirSync(dir).sort()) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(d);
    const file = join(dir, d, 'checks.json');
    if (m && existsSync(file)) found.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return found;
}

// summarize turns one scenario's checks into a row.
function summarize(scenario, required, run, checks) {
  const counts = {};
  for (const c of checks || []) counts[c.status] = (counts[c.status] || 0) + 1;
  let result;
  if (!checks || checks.length === 0) result = checks ? 'NONE' : 'ERROR';
  else if (counts.FAILURE) result = 'FAIL';
  else if (counts.WARNING) result = 'WARN';
  else if (counts.SUCCESS) result = 'PASS';
  else result = 'NONE';
  const notes = (checks || [])
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.id}: ${c.errorMessage || (c.details && c.details.message) || c.description}`);
  if (!checks) {
    const tail = run.output.trim().split('\n').slice(-3).join(' | ');
    notes.push(run.timedOut ? 'timed out' : `no checks recorded (exit ${run.code}): ${tail}`);
  }
  return { scenario, required, result, exitCode: run.code, counts, notes, checks: checks || [] };
}

function table(rows) {
  const w = Math.max('SCENARIO'.length, ...rows.map((r) => r.scenario.length));
  const n = (r, k) => String(r.counts[k] || 0);
  const lines = [
    `${'SCENARIO'.padEnd(w)}  RESULT  REQUIRED  SUCCESS  FAILURE  WARNING  NOTE`,
  ];
  for (const r of rows) {
    const note = r.notes.length ? r.notes[0].slice(0, 140) + (r.notes.length > 1 ? ` (+${r.notes.length - 1} more)` : '') : '';
    lines.push(
      `${r.scenario.padEnd(w)}  ${r.result.padEnd(6)}  ${(r.required ? 'yes' : '-').padEnd(8)}  ` +
        `${n(r, 'SUCCESS').padEnd(7)}  ${n(r, 'FAILURE').padEnd(7)}  ${n(r, 'WARNING').padEnd(7)}  ${note}`.trimEnd(),
    );
  }
  return lines.join('\n') + '\n';
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(suiteBin)) {
    process.stderr.write(`conformance: ${suiteBin} is missing; run: npm ci --prefix tests/node\n`);
    process.exit(2);
  }
  const known = listServerScenarios();
  const scenarios = opts.scenarios.length ? opts.scenarios : known;
  const unknown = scenarios.filter((s) => !known.includes(s));
  if (unknown.length) usage(`unknown scenario(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);

  let required;
  if (opts.required !== undefined) required = splitList(opts.required);
  else if (opts.scenarios.length) required = scenarios;
  else if (process.env.CONFORMANCE_REQUIRED) required = splitList(process.env.CONFORMANCE_REQUIRED);
  else required = CORE_REQUIRED;
  if (required.length === 1 && required[0] === 'none') required = [];
  const notRun = required.filter((s) => !scenarios.includes(s));
  if (notRun.length) usage(`required scenario(s) not run: ${notRun.join(', ')}`);

  const out = opts.out ?? mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const rows = new Array(scenarios.length);
  try {
    if (opts.scenarios.length === 0) {
      // Everything: one run of the whole suite is much faster than one
      // process per scenario.
      const dir = join(out, 'all');
      mkdirSync(dir, { recursive: true });
      const run = await runSuite(['server', '--url', opts.url, '--suite', 'all', '-o', dir], opts.timeoutMs);
      if (opts.verbose) process.stderr.write(`${run.output}\n`);
      const found = checksByScenario(dir);
      scenarios.forEach((scenario, i) => {
        rows[i] = summarize(scenario, required.includes(scenario), run, found.get(scenario));
      });
    } else {
      let next = 0;
      const worker = async () => {
        while (next < scenarios.length) {
          const i = next++;
          const scenario = scenarios[i];
          const dir = join(out, scenario.replace(/[^A-Za-z0-9._-]/g, '_'));
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true });
          const run = await runSuite(['server', '--url', opts.url, '--scenario', scenario, '-o', dir], opts.timeoutMs);
          if (opts.verbose) process.stderr.write(`=== ${scenario} (exit ${run.code})\n${run.output}\n`);
          rows[i] = summarize(scenario, required.includes(scenario), run, checksByScenario(dir).get(scenario));
        }
      };
      await Promise.all(Array.from({ length: Math.min(opts.jobs, scenarios.length) }, worker));
    }
  } finally {
    if (opts.out === undefined) rmSync(out, { recursive: true, force: true });
  }

  const bad = (r) => r.result === 'FAIL' || r.result === 'ERROR' || (opts.strict && r.result === 'WARN');
  const requiredBad = rows.filter((r) => r.required && bad(r));
  const ok = rows.filter((r) => r.result === 'PASS' || r.result === 'WARN' || r.result === 'NONE').length;
  const summary =
    `conformance against ${opts.url}: required ${required.length - requiredBad.length}/${required.length} ok` +
    (requiredBad.length ? ` (not ok: ${requiredBad.map((r) => r.scenario).join(', ')})` : '') +
    `; all scenarios ${ok}/${rows.length} ok\n`;

  const report = { url: opts.url, ok: requiredBad.length === 0, strict: opts.strict, required, scenarios: rows };
  const textOut = opts.json === '-' ? process.stderr : process.stdout;
  textOut.write(table(rows));
  textOut.write(summary);
  if (opts.json === '-') process.stdout.write(JSON.stringify(report) + '\n');
  else if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2) + '\n');
  return requiredBad.length ? 1 : 0;
}

main().then(
  (code) => process.stdout.write('', () => process.exit(code)),
  (err) => {
    process.stderr.write(`conformance: ${err && err.stack ? err.stack : err}\n`);
    process.exit(2);
  },
);
