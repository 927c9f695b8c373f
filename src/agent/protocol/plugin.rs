//! The plugin `agent install` writes for an agent without command hooks
//! (OpenCode): a small JavaScript module that runs `run-check agent hook
//! AGENT EVENT` itself, with an argument list and no shell, feeds it the
//! input a hook would get, and acts on the reply. Its events (`start`,
//! `stop`) and reply keys (`decision`, `reason`, `systemMessage`) are
//! those of OpenCode's row of the table.

/// The line that marks the file as written by run-check: `uninstall`
/// removes only a file that has it, and `install` replaces no file without
/// it unless `--force`.
pub(crate) const MARKER: &str =
    "// written by `run-check agent install`; `run-check agent uninstall` removes it";

/// OpenCode's plugin (`.opencode/plugin/run-check.js`) for the agent named
/// `agent` on run-check's command line, for OpenCode's
/// plugin API (a default export `{id, server}`, `server(input)` returning
/// hooks; the `event` hook sees every bus event): on `session.created` it
/// runs `run-check agent hook opencode start`; on `session.idle` it runs
/// `... stop` and, when the reply blocks, sends the reason to the session
/// as the next prompt. A release's message goes to OpenCode's log and a
/// toast. The hook gets `seconds` before the plugin kills it.
pub(crate) fn opencode(agent: &str, seconds: u64) -> String {
    let millis = seconds.saturating_mul(1000);
    format!(
        r#"{MARKER}
//
// run-check's gate for OpenCode. OpenCode has no command hooks: when a
// session goes idle this plugin runs `run-check agent hook opencode stop`
// (an argument list, no shell) with the session's id and folder on stdin,
// and when the gate blocks it sends the reason as the session's next
// prompt. `run-check` must be on the PATH OpenCode runs with.
import {{ spawn }} from "node:child_process"

const AGENT = {agent:?}

// `[agent] timeout` + 60 s, as `run-check agent install` wrote it.
const TIMEOUT_MS = {millis}

{BODY}"#
    )
}

/// The plugin past its header: the hook's call and OpenCode's events.
const BODY: &str = r#"function hook(event, input, cwd) {
  return new Promise((resolve) => {
    let out = ""
    let child
    try {
      child = spawn("run-check", ["agent", "hook", AGENT, event], {
        cwd,
        stdio: ["pipe", "pipe", "pipe"],
      })
    } catch {
      resolve(null)
      return
    }
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS)
    child.on("error", () => {
      clearTimeout(timer)
      resolve(null)
    })
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.stderr.on("data", () => {})
    child.on("close", () => {
      clearTimeout(timer)
      try {
        resolve(JSON.parse(out))
      } catch {
        resolve(null)
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })
}

async function tell(client, message) {
  try {
    await client.app?.log?.({ body: { service: "run-check", level: "warn", message } })
  } catch {}
  try {
    await client.tui?.showToast?.({ body: { message, variant: "warning" } })
  } catch {}
}

async function RunCheck({ client, directory, worktree }) {
  const cwd = worktree || directory
  // Sessions whose next idle follows a prompt this plugin sent.
  const continued = new Set()
  return {
    event: async ({ event }) => {
      if (event.type === "session.created") {
        const id = event.properties?.info?.id
        if (id) {
          await hook("start", { session_id: id, cwd, hook_event_name: "session.created" }, cwd)
        }
        return
      }
      if (event.type !== "session.idle") return
      const id = event.properties?.sessionID
      if (!id) return
      const active = continued.delete(id)
      const reply = await hook(
        "stop",
        { session_id: id, cwd, hook_event_name: "session.idle", stop_hook_active: active },
        cwd,
      )
      if (typeof reply?.systemMessage === "string") await tell(client, reply.systemMessage)
      if (reply?.decision !== "block" || typeof reply.reason !== "string") return
      continued.add(id)
      // Not awaited: the prompt starts a turn whose own idle comes back here.
      const send = client.session.promptAsync ?? client.session.prompt
      Promise.resolve(
        send.call(client.session, {
          path: { id },
          body: { parts: [{ type: "text", text: reply.reason }] },
        }),
      ).catch(() => {})
    },
  }
}

export default { id: "run-check", server: RunCheck }
"#;
