// Package rollout is NeMo Gym's rollout contract, as an mcpdoor door serves
// it: what an RL harness's agents need from a resources server beyond its
// tools.
//
// A server follows the contract when its router serves POST /seed_session
// and POST /verify; package autoexpose then turns it on (see
// autoexpose.Install) and configures it from the mcp.rollout block of the
// server's config (autoexpose.Rollout, converted to [Config]). The package
// is internal: a server reaches it through autoexpose alone. The contract
// then:
//
//   - adds to /seed_session's 2xx JSON object response the "mcp" key
//     ([Metadata]): the server name, the MCP endpoint's path, and a header
//     carrying a signed session token for the session the response's cookie
//     names, with the tools [Config.AllowedTools] allows;
//   - checks that token on every MCP tool call ([Contract.Admit]) and runs
//     the call in its session, so the HTTP door and the MCP door of one
//     rollout share its state, and two rollouts never see each other's;
//   - shows /verify the trajectory's mcp__<server>__<tool> names as the bare
//     tool names it knows, and echoes the emitted names back (package
//     verifywrap);
//   - serves /ng-rollout/<rollout_id>/<path> as /<path>, the prefix NeMo
//     Gym adds with observability on, stripped by what the server serves
//     outermost, before any of its checks ([StripPrefix], [ID]); a token
//     seeded under the prefix is bound to its rollout.
//
// The session cookie goes out on every response (package session), so an
// agent that keeps only the cookies of the last response it got (NeMo Gym's
// simple_agent) stays in its session.
package rollout
