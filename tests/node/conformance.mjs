#!/usr/bin/env node
// conformance.mjs runs the official MCP conformance suite
// (@modelcontextprotocol/conformance) against a running server, and sums up
// each scenario as a row of a table.
//
// Usage:
//   node conformance.mjs [options] <url> [scenario...]
//
// With no scenario named, every server scenario of each suite run (see
// --suite) is run, in one process of the suite per run, the runs at once
// (up to --jobs); with scenarios named, one process per scenario and run.
//
// Options:
//   --suite LIST     the suite runs (comma or space separated, or the option
//                    given again), each a suite of tests/node and, for 0.2, a
//                    spec revision whose frozen requirement set to run at its
//                    wire:
//                      0.1        @modelcontextprotocol/conformance 0.1.16,
//                                 every server scenario (the default)
//                      0.2        0.2.0-alpha.12 (conformance-0.2), every
//                                 server scenario
//                      0.2@REV    0.2.0-alpha.12, the server scenarios that
//                                 spec revision REV (2025-11-25, 2026-07-28)
//                                 requires, and those it runs without
//                                 scoring them (extensions, pending)
//   --required LIST  scenarios (comma or space separated) whose failure makes the
//                    exit status 1. Default: the scenarios named on the command
//                    line; when none are named, $CONFORMANCE_REQUIRED, or else
//                    the core list below. "none" requires nothing.
//   --strict         a WARNING in a required scenario counts as a failure.
//   --out DIR        keep the suite's checks.json files under DIR.
//   --json FILE      also write the results as JSON to FILE; "-" writes the JSON
//                    to stdout and the table to stderr.
//   --verbose        print the suite's own output for every scenario.
//   --timeout MS     limit for one run of the suite (default 120000): a whole
//                    suite run when no scenario is named, else each named
//                    scenario.
//   --jobs N         suite processes at once (default 2).
//
// A scenario's result is FAIL when one of its checks is a FAILURE, ERROR when the
// suite produced no checks for it (it crashed or timed out), WARN when it has
// warnings but no failure, PASS when it has successes only, and NONE when it
// recorded informational checks only. A row also says which suite run it is
// of, and, for a requirement set, whether the revision scores the scenario.
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

// The installed suites, by the name --suite gives them: their package
// directories under node_modules.
const SUITES = {
  '0.1': join(here, 'node_modules', '@modelcontextprotocol', 'conformance'),
  '0.2': join(here, 'node_modules', 'conformance-0.2'),
};

function usage(message) {
  if (message) process.stderr.write(`conformance: ${message}\n`);
  process.stderr.write(
    'usage: conformance.mjs [--suite LIST] [--required LIST] [--strict] [--out DIR] [--json FILE|-] [--verbose] [--timeout MS] [--jobs N] <url> [scenario...]\n',
  );
  process.exit(2);
}

function splitList(s) {
  return String(s)
    .split(/[\s,]+/)
    .filter(Boolean);
}

function parseArgs(argv) {
  const opts = { strict: false, verbose: false, timeoutMs: 120_000, jobs: 2, positional: [], suites: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--suite': opts.suites.push(...splitList(value())); break;
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
  if (opts.suites.length === 0) opts.suites = ['0.1'];
  opts.runs = opts.suites.map(parseSuite);
  try {
    new URL(opts.url);
  } catch {
    usage(`not a URL: ${opts.url}`);
  }
  return opts;
}

// parseSuite reads one --suite value: a suite, and a spec revision for a
// requirement set.
function parseSuite(spec) {
  const [name, requirements = ''] = spec.split('@');
  const dir = SUITES[name];
  if (!dir) usage(`unknown suite ${JSON.stringify(name)}; known: ${Object.keys(SUITES).join(', ')}`);
  if (requirements && name === '0.1') usage('suite 0.1 has no requirement sets');
  const bin = join(dir, 'dist', 'index.js');
  if (!existsSync(bin)) {
    process.stderr.write(`conformance: ${bin} is missing; run: npm ci --prefix tests/node\n`);
    process.exit(2);
  }
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  return { spec: requirements ? `${name}@${requirements}` : name, name, requirements, bin, version, label: requirements ? `${version}@${requirements}` : version };
}

// listServerScenarios returns the server scenarios of a suite run, each with
// whether the run scores it: every one for a whole suite; for a
// requirement set, those the revision requires, and (unscored) those it runs
// and reports without scoring them.
function listServerScenarios(run) {
  const args = ['list', '--server', ...(run.requirements ? ['--requirements', run.requirements] : [])];
  const r = spawnSync(process.execPath, [run.bin, ...args], { encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`conformance: listing scenarios of ${run.label} failed:\n${r.stdout}${r.stderr}`);
    process.exit(2);
  }
  const scenarios = new Map();
  let section;
  for (const line of r.stdout.split('\n')) {
    if (/^Server scenarios/.test(line)) section = 'server';
    else if (/^Client scenarios/.test(line)) section = 'client';
    else if (/never scored/.test(line)) section = 'unscored';
    const m = /^\s+-\s+(\S+)(?:\s+\[([^\]]*)\])?/.exec(line);
    if (!m) continue;
    if (section === 'server') scenarios.set(m[1], true);
    else if (section === 'unscored' && m[2] === 'server') scenarios.set(m[1], false);
  }
  return scenarios;
}

// runSuite runs the suite's CLI bin with args, keeping its combined output.
function runSuite(bin, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
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

// summarize turns one scenario's checks into a row of the suite run suite.
function summarize(suite, scored, scenario, required, run, checks) {
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
  return {
    run: suite.spec,
    suite: suite.label,
    requirements: suite.requirements || undefined,
    scored,
    scenario,
    required,
    result,
    exitCode: run.code,
    counts,
    notes,
    checks: checks || [],
  };
}

function table(rows) {
  const w = Math.max('SCENARIO'.length, ...rows.map((r) => r.scenario.length));
  const sw = Math.max('SUITE'.length, ...rows.map((r) => r.suite.length + (r.scored ? 0 : 1)));
  const n = (r, k) => String(r.counts[k] || 0);
  const lines = [
    `${'SUITE'.padEnd(sw)}  ${'SCENARIO'.padEnd(w)}  RESULT  REQUIRED  SUCCESS  FAILURE  WARNING  NOTE`,
  ];
  for (const r of rows) {
    const note = r.notes.length ? r.notes[0].slice(0, 140) + (r.notes.length > 1 ? ` (+${r.notes.length - 1} more)` : '') : '';
    // An unscored scenario's suite is marked with a *.
    lines.push(
      `${(r.suite + (r.scored ? '' : '*')).padEnd(sw)}  ${r.scenario.padEnd(w)}  ${r.result.padEnd(6)}  ${(r.required ? 'yes' : '-').padEnd(8)}  ` +
        `${n(r, 'SUCCESS').padEnd(7)}  ${n(r, 'FAILURE').padEnd(7)}  ${n(r, 'WARNING').padEnd(7)}  ${note}`.trimEnd(),
    );
  }
  return lines.join('\n') + '\n';
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const listed = opts.runs.map(listServerScenarios);
  if (opts.scenarios.length) {
    const unknown = opts.scenarios.filter((s) => !listed.some((l) => l.has(s)));
    if (unknown.length) usage(`unknown scenario(s): ${unknown.join(', ')}; known: ${[...new Set(listed.flatMap((l) => [...l.keys()]))].join(', ')}`);
  }
  const ran = new Set(opts.scenarios.length ? opts.scenarios : listed.flatMap((l) => [...l.keys()]));

  let required;
  if (opts.required !== undefined) required = splitList(opts.required);
  else if (opts.scenarios.length) required = opts.scenarios;
  else if (process.env.CONFORMANCE_REQUIRED) required = splitList(process.env.CONFORMANCE_REQUIRED);
  else required = CORE_REQUIRED.filter((s) => ran.has(s));
  if (required.length === 1 && required[0] === 'none') required = [];
  const notRun = required.filter((s) => !ran.has(s));
  if (notRun.length) usage(`required scenario(s) not run: ${notRun.join(', ')}`);

  const out = opts.out ?? mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  // The work: one job per suite run when no scenario is named (a whole
  // run is much faster than one process per scenario), else one per
  // scenario and run that has it.
  const jobs = [];
  opts.runs.forEach((suite, i) => {
    const known = listed[i];
    const dirOf = (name) => join(out, suite.label.replace(/[^A-Za-z0-9._-]/g, '_'), name.replace(/[^A-Za-z0-9._-]/g, '_'));
    const url = ['--url', opts.url];
    if (opts.scenarios.length === 0) {
      const args = suite.requirements ? ['--requirements', suite.requirements] : ['--suite', 'all'];
      jobs.push({ suite, names: [...known.keys()], dir: dirOf('all'), args: ['server', ...url, ...args] });
      return;
    }
    for (const name of opts.scenarios.filter((s) => known.has(s))) {
      const version = suite.requirements ? ['--spec-version', suite.requirements] : [];
      jobs.push({ suite, names: [name], dir: dirOf(name), args: ['server', ...url, '--scenario', name, ...version] });
    }
  });
  const rows = [];
  try {
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        rmSync(job.dir, { recursive: true, force: true });
        mkdirSync(job.dir, { recursive: true });
        const run = await runSuite(job.suite.bin, [...job.args, '-o', job.dir], opts.timeoutMs);
        if (opts.verbose) process.stderr.write(`=== ${job.suite.label} ${job.names.length === 1 ? job.names[0] : ''} (exit ${run.code})\n${run.output}\n`);
        const found = checksByScenario(job.dir);
        const scored = listed[opts.runs.indexOf(job.suite)];
        job.rows = job.names.map((name) => summarize(job.suite, scored.get(name), name, required.includes(name), run, found.get(name)));
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.jobs, jobs.length) }, worker));
    for (const job of jobs) rows.push(...job.rows);
  } finally {
    if (opts.out === undefined) rmSync(out, { recursive: true, force: true });
  }

  const bad = (r) => r.result === 'FAIL' || r.result === 'ERROR' || (opts.strict && r.result === 'WARN');
  const requiredBad = rows.filter((r) => r.required && bad(r));
  const ok = rows.filter((r) => r.result === 'PASS' || r.result === 'WARN' || r.result === 'NONE').length;
  const summary =
    `conformance against ${opts.url} (${opts.runs.map((r) => r.label).join(', ')}): required ${rows.filter((r) => r.required).length - requiredBad.length}/${rows.filter((r) => r.required).length} ok` +
    (requiredBad.length ? ` (not ok: ${requiredBad.map((r) => `${r.suite} ${r.scenario}`).join(', ')})` : '') +
    `; all scenarios ${ok}/${rows.length} ok\n`;

  const report = { url: opts.url, ok: requiredBad.length === 0, strict: opts.strict, suites: opts.runs.map((r) => r.label), required, scenarios: rows };
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
