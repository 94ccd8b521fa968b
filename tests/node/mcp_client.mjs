#!/usr/bin/env node
// mcp_client.mjs drives an MCP server as a real peer: the official
// TypeScript SDK's client (v1, @modelcontextprotocol/sdk, or v2,
// @modelcontextprotocol/client), the Vercel AI SDK's, or the OpenAI Agents
// SDK's. Go tests run it (see tests/nodeclient) to check that what mcpdoor
// serves is understood by other implementations.
//
// Usage:
//   node mcp_client.mjs '<scenario-json>'
//   node mcp_client.mjs - < scenario.json
//
// Scenario (HTTP):
//   {"url": "http://127.0.0.1:PORT/mcp",
//    "client": "ai-sdk",                            // optional: another client than the official
//                                                   // SDK's v1: "ai-sdk" (@ai-sdk/mcp), "ts-v2"
//                                                   // (@modelcontextprotocol/client 2.x),
//                                                   // "openai-agents" (@openai/agents' MCPServerStreamableHttp)
//    "versionNegotiation": "auto",                  // optional, ts-v2: "auto" (the default: server/discover,
//                                                   // then initialize), "legacy" (initialize only), or a
//                                                   // version to pin ("2026-07-28": discover, no fallback)
//    "headers": {"X-Some-Header": "..."},          // sent on every MCP request
//    "protocolVersion": "2025-06-18",               // optional: version the client asks for
//    "timeoutMs": 30000,                            // optional: hard limit for the whole run
//    "stepTimeoutMs": 5000,                         // optional: limit for one request (default timeoutMs)
//    "steps": [...]}
// Scenario (stdio):
//   {"command": "go", "args": ["run", "./examples/weather", "-stdio"],
//    "env": {"K": "V"}, "cwd": "...", "steps": [...]}
//
// Steps, run in order (MCP steps connect lazily on first use):
//   {"op": "list", "cursor": "..."}                 -> client.listTools() result
//   {"op": "call", "name": "...", "arguments": {}}  -> client.callTool() result
//   {"op": "ping"}                                  -> client.ping() result
//   {"op": "resources", "cursor": "..."}            -> client.listResources() result
//   {"op": "read", "uri": "..."}                    -> client.readResource() result
//   {"op": "info"}                                  -> serverInfo, capabilities, instructions,
//                                                      protocolVersion, sessionId
//   {"op": "http", "method": "POST", "path": "/seed_session", "headers": {},
//    "body": {...} | "text", "cookieJar": true}      -> {status, headers, body}
//   {"op": "connectHeadersFrom", "step": N, "path": "mcp.headers",
//    "urlPath": "mcp.url_path"}                     -> (re)connects with headers (and optionally
//                                                      the URL path) read from the JSON body of
//                                                      the http result of step N
//   {"op": "terminate"}                             -> ends the HTTP session (DELETE)
//   {"op": "close"}                                 -> closes the client
//
// The "ai-sdk" client runs the steps list, call, resources, read, info, http,
// connectHeadersFrom and close; it has no ping, no terminate and no
// protocolVersion option. So does "openai-agents", which negotiates as
// "ts-v2" with "auto" does (it is built on that client). "ts-v2" runs every
// step, and negotiates as versionNegotiation says (protocolVersion does not
// apply to it).
//
// Output: one JSON document on stdout, {"ok": true, "results": [...]}, one
// result per step; a step that throws records {"error": {"message", "code",
// "data", "name"}} and the run goes on. Exit code 0 whenever the script itself
// worked; non-zero, with a message on stderr, otherwise.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMCPClient } from '@ai-sdk/mcp';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { MCPServerStreamableHttp } from '@openai/agents';

const DEFAULT_TIMEOUT_MS = 30_000;

function die(message, code = 2) {
  process.stderr.write(`mcp_client: ${message}\n`);
  process.exit(code);
}

function readScenario() {
  const arg = process.argv[2];
  if (arg === undefined || process.argv.length > 3 || arg === '-h' || arg === '--help') {
    die('usage: node mcp_client.mjs <scenario-json | ->', 2);
  }
  const text = arg === '-' ? readFileSync(0, 'utf8') : arg;
  let scenario;
  try {
    scenario = JSON.parse(text);
  } catch (err) {
    die(`scenario is not valid JSON: ${err.message}`);
  }
  if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario)) {
    die('scenario must be a JSON object');
  }
  if (!Array.isArray(scenario.steps)) die('scenario.steps must be an array');
  if (!scenario.url === !scenario.command) die('scenario needs exactly one of "url" (HTTP) or "command" (stdio)');
  if (scenario.url) {
    try {
      new URL(scenario.url);
    } catch {
      die(`scenario.url is not a URL: ${scenario.url}`);
    }
  }
  return scenario;
}

// errorRecord turns anything thrown into the JSON recorded for a failed step.
function errorRecord(err) {
  const rec = { message: err instanceof Error ? err.message : String(err) };
  if (err && err.code !== undefined) rec.code = err.code;
  if (err && err.data !== undefined) rec.data = err.data;
  if (err instanceof Error && err.name && err.name !== 'Error') rec.name = err.name;
  // fetch reports "fetch failed" and keeps the reason (ECONNREFUSED, ...) here.
  if (err && err.cause) rec.cause = err.cause.message || String(err.cause);
  return { error: rec };
}

// dig returns the value at a dotted path ("mcp.headers") inside obj.
function dig(obj, path) {
  let cur = obj;
  for (const key of String(path).split('.').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object' || !(key in cur)) {
      throw new Error(`path "${path}" not found (missing "${key}")`);
    }
    cur = cur[key];
  }
  return cur;
}

// observeInitialize watches the initialize exchange on transport: it records
// the protocol version the server answers with (the SDK keeps it only on HTTP
// transports) and, when version is set, makes the client ask for that version
// (the SDK always offers its latest one and has no option for this, so the
// outgoing message is rewritten).
function observeInitialize(transport, version, record) {
  let initId;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message && message.method === 'initialize') {
      initId = message.id;
      if (version && message.params) {
        message = { ...message, params: { ...message.params, protocolVersion: version } };
      }
    }
    return send(message, options);
  };
  // Protocol.connect chains an onmessage set before it, so this sees every
  // message before the client does.
  transport.onmessage = (message) => {
    if (initId !== undefined && message && message.id === initId && message.result) {
      record(message.result.protocolVersion);
    }
  };
}

// AISDKClient gives @ai-sdk/mcp's client the methods of the official SDK's
// Client that the steps use, so that one scenario runs on either peer.
class AISDKClient {
  constructor(client) {
    this.client = client;
  }

  listTools(params, options) {
    return this.client.listTools({ params, options });
  }

  callTool({ name, arguments: args }, _schema, options) {
    return this.client.callTool({ name, arguments: args, options });
  }

  listResources(params, options) {
    return this.client.listResources({ params, options });
  }

  readResource({ uri }, options) {
    return this.client.readResource({ uri, options });
  }

  ping() {
    throw new Error('the ai-sdk client has no ping');
  }

  getServerVersion() {
    return this.client.serverInfo;
  }

  getServerCapabilities() {
    return this.client.initializeResult.capabilities;
  }

  getInstructions() {
    return this.client.instructions;
  }

  close() {
    return this.client.close();
  }
}

// V2Client gives the TypeScript SDK v2's Client the methods of the v1
// Client that the steps use (v2's callTool takes its options second).
class V2Client {
  constructor(client) {
    this.client = client;
  }

  listTools(params, options) {
    return this.client.listTools(params, options);
  }

  callTool(params, _schema, options) {
    return this.client.callTool(params, options);
  }

  listResources(params, options) {
    return this.client.listResources(params, options);
  }

  readResource(params, options) {
    return this.client.readResource(params, options);
  }

  ping(options) {
    return this.client.ping(options);
  }

  getServerVersion() {
    return this.client.getServerVersion();
  }

  getServerCapabilities() {
    return this.client.getServerCapabilities();
  }

  getInstructions() {
    return this.client.getInstructions();
  }

  close() {
    return this.client.close();
  }
}

// AgentsClient gives the OpenAI Agents SDK's MCP server connection
// (MCPServerStreamableHttp) the methods of the official SDK's Client that
// the steps use. What it learned connecting is its client's, a v2 Client.
class AgentsClient {
  constructor(server) {
    this.server = server;
  }

  get session() {
    return this.server.underlying && this.server.underlying.session;
  }

  async listTools() {
    return { tools: await this.server.listTools() };
  }

  callTool({ name, arguments: args }) {
    return this.server.callToolResult(name, args ?? {});
  }

  listResources(params) {
    return this.server.listResources(params);
  }

  readResource({ uri }) {
    return this.server.readResource(uri);
  }

  ping() {
    throw new Error('the openai-agents client has no ping');
  }

  getServerVersion() {
    return this.session && this.session.getServerVersion();
  }

  getServerCapabilities() {
    return this.session && this.session.getServerCapabilities();
  }

  getInstructions() {
    return this.session && this.session.getInstructions();
  }

  close() {
    return this.server.close();
  }
}

class Runner {
  constructor(scenario) {
    this.scenario = scenario;
    this.timeoutMs = Number(scenario.timeoutMs) > 0 ? Number(scenario.timeoutMs) : DEFAULT_TIMEOUT_MS;
    this.stepTimeoutMs = Number(scenario.stepTimeoutMs) > 0 ? Number(scenario.stepTimeoutMs) : this.timeoutMs;
    this.url = scenario.url ? new URL(scenario.url) : undefined;
    this.headers = { ...(scenario.headers || {}) };
    this.cookies = new Map();
    this.client = undefined;
    this.transport = undefined;
    this.results = [];
    this.closing = new WeakSet();
  }

  // connectAISDK connects @ai-sdk/mcp's client over Streamable HTTP. It
  // negotiates by itself (server/discover, then initialize where the server
  // does not serve discover), so the protocol version is what it settled on.
  async connectAISDK() {
    if (!this.url) throw new Error('the ai-sdk client needs a scenario "url"');
    if (this.scenario.protocolVersion) throw new Error('the ai-sdk client takes no protocolVersion');
    const transport = { sessionId: undefined };
    const client = await createMCPClient({
      name: 'mcpdoor-node-test-client',
      version: '0.0.0',
      transport: {
        type: 'http',
        url: this.url.href,
        headers: { ...this.headers },
        onSessionIdChange: (id) => {
          transport.sessionId = id;
        },
      },
      onUncaughtError: (err) => {
        process.stderr.write(`mcp_client: ai-sdk: ${err && err.message ? err.message : err}\n`);
      },
    });
    this.client = new AISDKClient(client);
    this.transport = transport;
    this.protocolVersion = client.initializeResult.protocolVersion;
    return this.client;
  }

  // connectV2 connects the TypeScript SDK v2's client over Streamable HTTP,
  // negotiating as scenario.versionNegotiation says.
  async connectV2() {
    if (!this.url) throw new Error('the ts-v2 client needs a scenario "url"');
    const want = this.scenario.versionNegotiation ?? 'auto';
    const mode = want === 'auto' || want === 'legacy' ? want : { pin: String(want) };
    const client = new ClientV2({ name: 'mcpdoor-node-test-client', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
    client.onerror = (err) => {
      if (this.closing.has(client) || (err && /AbortError|aborted/.test(`${err.name} ${err.message}`))) return;
      process.stderr.write(`mcp_client: ts-v2 transport: ${err && err.message ? err.message : err}\n`);
    };
    const transport = new StreamableHTTPClientTransportV2(this.url, { requestInit: { headers: { ...this.headers } } });
    try {
      await client.connect(transport, this.requestOptions());
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    this.client = new V2Client(client);
    this.transport = transport;
    this.protocolVersion = client.getNegotiatedProtocolVersion();
    return this.client;
  }

  // connectAgents connects the OpenAI Agents SDK's MCP server connection,
  // which negotiates by itself (server/discover, then initialize).
  async connectAgents() {
    if (!this.url) throw new Error('the openai-agents client needs a scenario "url"');
    const server = new MCPServerStreamableHttp({
      url: this.url.href,
      name: 'mcpdoor-node-test-client',
      requestInit: { headers: { ...this.headers } },
      timeout: this.stepTimeoutMs,
      clientSessionTimeoutSeconds: Math.ceil(this.stepTimeoutMs / 1000),
    });
    try {
      await server.connect();
    } catch (err) {
      await server.close().catch(() => {});
      throw err;
    }
    const client = new AgentsClient(server);
    this.client = client;
    this.transport = { get sessionId() { return server.sessionId; } };
    this.protocolVersion = client.session && client.session.getNegotiatedProtocolVersion();
    return client;
  }

  async connect() {
    if (this.scenario.client === 'ai-sdk') return this.connectAISDK();
    if (this.scenario.client === 'ts-v2') return this.connectV2();
    if (this.scenario.client === 'openai-agents') return this.connectAgents();
    if (this.scenario.client !== undefined) throw new Error(`unknown client ${JSON.stringify(this.scenario.client)}`);
    const client = new Client({ name: 'mcpdoor-node-test-client', version: '0.0.0' }, { capabilities: {} });
    client.onerror = (err) => {
      // Background transport errors (e.g. a server refusing the optional GET
      // stream) are not failures of a step; keep them visible for debugging,
      // except the aborts that closing the client causes.
      if (this.closing.has(client) || (err && err.name === 'AbortError')) return;
      if (err && /AbortError|aborted/.test(String(err.message))) return;
      process.stderr.write(`mcp_client: transport: ${err && err.message ? err.message : err}\n`);
    };
    let transport;
    if (this.scenario.command) {
      transport = new StdioClientTransport({
        command: this.scenario.command,
        args: (this.scenario.args || []).map(String),
        env: { ...process.env, ...(this.scenario.env || {}) },
        cwd: this.scenario.cwd,
        stderr: 'inherit',
      });
    } else {
      transport = new StreamableHTTPClientTransport(this.url, {
        requestInit: { headers: { ...this.headers } },
      });
    }
    this.protocolVersion = undefined;
    observeInitialize(transport, this.scenario.protocolVersion && String(this.scenario.protocolVersion), (v) => {
      this.protocolVersion = v;
    });
    try {
      await client.connect(transport, this.requestOptions());
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    this.client = client;
    this.transport = transport;
    return client;
  }

  async mcp() {
    return this.client ?? this.connect();
  }

  async close() {
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (client) {
      this.closing.add(client);
      if (client.client) this.closing.add(client.client); // the v2 client, behind its adapter
      await client.close();
    }
  }

  requestOptions() {
    return { timeout: this.stepTimeoutMs };
  }

  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  storeCookies(res) {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0];
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      // Max-Age<=0 or an Expires in the past deletes the cookie.
      const attrs = line.split(';').slice(1).map((a) => a.trim().toLowerCase());
      const maxAge = attrs.find((a) => a.startsWith('max-age='));
      const expires = attrs.find((a) => a.startsWith('expires='));
      const expired = maxAge !== undefined
        ? Number(maxAge.slice('max-age='.length)) <= 0
        : expires !== undefined && Date.parse(expires.slice('expires='.length)) < Date.now();
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async http(step) {
    if (!this.url) throw new Error('"http" steps need a scenario "url"');
    const target = new URL(step.path || '/', this.url.origin);
    const headers = { ...(step.headers || {}) };
    let body;
    if (step.body !== undefined) {
      if (typeof step.body === 'string') {
        body = step.body;
      } else {
        body = JSON.stringify(step.body);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
          headers['Content-Type'] = 'application/json';
        }
      }
    }
    if (step.cookieJar && this.cookies.size > 0) headers.Cookie = this.cookieHeader();
    const res = await fetch(target, {
      method: step.method || (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.stepTimeoutMs),
    });
    if (step.cookieJar) this.storeCookies(res);
    const outHeaders = {};
    for (const [k, v] of res.headers) if (k !== 'set-cookie') outHeaders[k] = v;
    const setCookies = res.headers.getSetCookie();
    if (setCookies.length > 0) outHeaders['set-cookie'] = setCookies;
    const text = await res.text();
    let parsed = text;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
    }
    return { status: res.status, headers: outHeaders, body: parsed };
  }

  async connectHeadersFrom(step) {
    const idx = Number(step.step);
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.results.length) {
      throw new Error(`"step" must name an earlier step (0..${this.results.length - 1}), got ${step.step}`);
    }
    const source = this.results[idx];
    if (!source || source.error || source.body === undefined) {
      throw new Error(`step ${idx} has no http result to read headers from`);
    }
    const headers = dig(source.body, step.path || 'mcp.headers');
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
      throw new Error(`value at "${step.path || 'mcp.headers'}" is not an object of headers`);
    }
    for (const [k, v] of Object.entries(headers)) this.headers[k] = String(v);
    if (step.urlPath) {
      if (!this.url) throw new Error('"urlPath" needs an HTTP scenario');
      this.url = new URL(String(dig(source.body, step.urlPath)), this.url.origin);
    }
    await this.close();
    await this.connect();
    return this.info();
  }

  info() {
    const c = this.client;
    return {
      connected: true,
      url: this.url ? this.url.href : undefined,
      headers: this.scenario.command ? undefined : { ...this.headers },
      serverInfo: c.getServerVersion(),
      capabilities: c.getServerCapabilities(),
      instructions: c.getInstructions(),
      protocolVersion: this.protocolVersion,
      sessionId: this.transport.sessionId,
    };
  }

  async step(step) {
    switch (step && step.op) {
      case 'list': {
        const client = await this.mcp();
        const params = step.cursor !== undefined ? { cursor: step.cursor } : undefined;
        return client.listTools(params, this.requestOptions());
      }
      case 'call': {
        const client = await this.mcp();
        return client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, this.requestOptions());
      }
      case 'ping': {
        const client = await this.mcp();
        return client.ping(this.requestOptions());
      }
      case 'resources': {
        const client = await this.mcp();
        const params = step.cursor !== undefined ? { cursor: step.cursor } : undefined;
        return client.listResources(params, this.requestOptions());
      }
      case 'read': {
        const client = await this.mcp();
        return client.readResource({ uri: step.uri }, this.requestOptions());
      }
      case 'info':
        await this.mcp();
        return this.info();
      case 'http':
        return this.http(step);
      case 'connectHeadersFrom':
        return this.connectHeadersFrom(step);
      case 'terminate': {
        await this.mcp();
        if (!this.transport.terminateSession) throw new Error('"terminate" needs an HTTP scenario');
        await this.transport.terminateSession();
        await this.close();
        return { terminated: true };
      }
      case 'close':
        await this.close();
        return { closed: true };
      default:
        throw new Error(`unknown op ${JSON.stringify(step && step.op)}`);
    }
  }

  async run() {
    for (const step of this.scenario.steps) {
      try {
        this.results.push(await this.step(step));
      } catch (err) {
        this.results.push(errorRecord(err));
      }
    }
  }
}

async function main() {
  const scenario = readScenario();
  const runner = new Runner(scenario);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    process.stderr.write(
      `mcp_client: timed out after ${runner.timeoutMs} ms with ${runner.results.length} of ` +
        `${scenario.steps.length} steps done; results so far: ${JSON.stringify(runner.results)}\n`,
    );
    runner.close().catch(() => {});
    setTimeout(() => process.exit(3), 500).unref();
  }, runner.timeoutMs);
  try {
    await runner.run();
  } finally {
    await runner.close().catch((err) => process.stderr.write(`mcp_client: close: ${err.message}\n`));
    clearTimeout(timer);
  }
  if (timedOut) return new Promise(() => {}); // the timer exits the process
  process.stdout.write(JSON.stringify({ ok: true, results: runner.results }) + '\n');
}

main().then(
  // Exit explicitly: a server-held stream must not keep the process alive.
  () => process.stdout.write('', () => process.exit(0)),
  (err) => die(err && err.stack ? err.stack : String(err), 1),
);
