//! `murk serve --stdio`: the same requests as one JSON object per line, for a host that runs
//! engines as workers. Murk first writes `{"kind":"ready",...}`; then every input line gets one
//! output line, in order.
//!
//! A line is either Mistboard's worker envelope, `{"requestId", "engineTurnRequest",
//! "computeBudgetMs", "workerDeadlineMs", "watchdogTimeoutMs"}` (the legacy `watchdogTimeoutMs`
//! holds the compute budget, as Mistboard's pool sends it), answered `{"requestId", "ok": true,
//! "response": {...}}` or `{"requestId", "ok": false, "error", "code", "status"}`; or a bare
//! `EngineTurnRequest` or `EngineObservationPush`, answered with the bare response, ack or
//! error body.

use super::wire::{self, Problem};
use super::{Timing, TurnService};
use serde_json::{json, Map, Value};
use std::io::{self, BufRead, Read, Write};
use std::sync::Arc;
use std::time::Instant;

/// The longest input line read (a longer one is answered with an error and skipped).
pub const MAX_LINE_BYTES: u64 = 16 << 20;

/// Serves lines from `input` until its end.
pub fn run(engine: Arc<TurnService>, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let ready =
        json!({ "kind": "ready", "engine": crate::protocol::ENGINE_NAME, "protocolVersion": wire::PROTOCOL_VERSION });
    writeln!(output, "{ready}")?;
    output.flush()?;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = (&mut input).take(MAX_LINE_BYTES).read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let received = Instant::now();
        let answer = if buf.last() != Some(&b'\n') && n as u64 == MAX_LINE_BYTES {
            let more = skip_line(&mut input);
            let problem = Problem::new(413, "payload_too_large", format!("line longer than {MAX_LINE_BYTES} bytes"));
            if !more {
                writeln!(output, "{}", error_line(Value::Null, &problem, false))?;
                return output.flush();
            }
            error_line(Value::Null, &problem, false)
        } else {
            let line = String::from_utf8_lossy(&buf);
            if line.trim().is_empty() {
                continue;
            }
            let line = line.trim().as_bytes();
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer_line(&engine, line, received)))
                .unwrap_or_else(|_| {
                    error_line(
                        Value::Null,
                        &Problem::new(500, "internal_error", "the engine failed on this line"),
                        false,
                    )
                })
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
}

/// Discards input up to the next newline; false at the end of the input.
fn skip_line(input: &mut impl BufRead) -> bool {
    loop {
        let (used, found) = match input.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            },
        };
        input.consume(used);
        if found {
            return true;
        }
    }
}

/// The error line: in an envelope's shape when the request came in one.
fn error_line(request_id: Value, problem: &Problem, bare: bool) -> Value {
    if bare {
        let mut body = problem.body();
        body["status"] = json!(problem.status);
        return body;
    }
    let reply = wire::WorkerReply {
        request_id,
        ok: false,
        response: None,
        error: Some(format!("{}: {}", problem.code, problem.message)),
        code: Some(problem.code.to_string()),
        status: Some(problem.status),
    };
    serde_json::to_value(reply).unwrap_or(Value::Null)
}

fn number_ms(object: &Map<String, Value>, key: &str) -> Option<u64> {
    object.get(key)?.as_f64().filter(|v| v.is_finite() && *v >= 1.0).map(|v| v as u64)
}

/// The answer to one line.
fn answer_line(engine: &Arc<TurnService>, line: &[u8], received: Instant) -> Value {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let problem = Problem::new(400, "malformed_json", format!("the line is not valid JSON: {e}"));
            return error_line(Value::Null, &problem, false);
        }
    };
    let Some(object) = value.as_object() else {
        return error_line(Value::Null, &Problem::invalid("the line is not a JSON object"), false);
    };
    if let Some(inner) = object.get("engineTurnRequest") {
        let request_id = object.get("requestId").cloned().unwrap_or(Value::Null);
        let timing = Timing {
            received,
            compute_budget_ms: number_ms(object, "computeBudgetMs").or_else(|| number_ms(object, "watchdogTimeoutMs")),
            watchdog_ms: number_ms(object, "workerDeadlineMs"),
        };
        let answer = wire::check_version(inner)
            .and_then(|()| wire::turn_request(inner.clone()))
            .and_then(|request| engine.turn(request, timing));
        return match answer {
            Ok(response) => {
                let engine_id = inner.get("engineId").cloned().unwrap_or(Value::Null);
                let source = response.diagnostics.get("source").cloned().unwrap_or(Value::Null);
                let mut body = serde_json::to_value(&response).unwrap_or(Value::Null);
                body["engine"] = json!({ "id": engine_id });
                body["roomId"] = json!(response.game_id);
                body["decisionSource"] = source;
                let reply = wire::WorkerReply {
                    request_id,
                    ok: true,
                    response: Some(body),
                    error: None,
                    code: None,
                    status: None,
                };
                serde_json::to_value(reply).unwrap_or(Value::Null)
            }
            Err(problem) => error_line(request_id, &problem, false),
        };
    }
    let bare = |r: Result<Value, Problem>| r.unwrap_or_else(|p| error_line(Value::Null, &p, true));
    if let Err(problem) = wire::check_version(&value) {
        return bare(Err(problem));
    }
    if object.contains_key("observation") {
        let push = wire::from_value::<wire::ObservationPush>(value).and_then(|p| engine.observe(p));
        return bare(push.map(|ack| serde_json::to_value(ack).unwrap_or(Value::Null)));
    }
    let answer = wire::turn_request(value)
        .and_then(|request| engine.turn(request, Timing { received, compute_budget_ms: None, watchdog_ms: None }));
    bare(answer.map(|r| serde_json::to_value(r).unwrap_or(Value::Null)))
}
