//! `murk replay --html`: a recorded game as one self-contained HTML page that steps through it
//! ply by ply, with three SVG boards per ply (the true position with both hands, White's view and
//! Black's view) and the engines' `info` lines beside the move list.
//!
//! The positions come from [`replay_game`] (the rules core) and the views from [`View`](crate::view::View) and
//! [`Observation`], the code the referee uses to tell the engines what they see: this module only
//! draws them. The page loads nothing: the boards are inline SVG drawn from shapes defined once in
//! the page, and a short script shows one frame at a time (`#ply=N` in the address selects one).

use super::contestant::Wire;
use super::line_engine::{Dir, Msg};
use super::mistboard::summarize;
use super::record::GameRecord;
use super::replay::{hand_letters, replay_game, ReplayedGame};
use crate::core::{Color, MoveKind, Piece, Role, Square, Variant};
use crate::rules::{PlyReport, Position};
use crate::view::{Observation, SquareView};
use anyhow::Result;
use std::fmt::Write;

/// Side of a square in SVG units.
const SQ: usize = 40;
/// Room left of the board for rank numbers.
const LEFT: usize = 16;
/// Room below the board for file letters.
const BOTTOM: usize = 18;
/// Drawn size of one SVG unit in CSS pixels.
const SCALE: f64 = 0.85;

/// The page for `record`: every ply of the game as a frame, frame 0 being the start position.
pub fn replay_html(record: &GameRecord) -> Result<String> {
    let game = replay_game(record)?;
    let mut page = String::with_capacity(64 * 1024);
    page.push_str(&head(record, game.variant));
    page.push_str(&defs(game.variant));
    page.push_str("<main><div id=\"frames\">\n");
    page.push_str(&frame(record, &game, 0));
    for n in 1..=game.plies.len() {
        page.push_str(&frame(record, &game, n));
    }
    page.push_str("</div>\n");
    page.push_str(&move_list(record, &game));
    page.push_str("</main>\n");
    page.push_str(LEGEND);
    page.push_str(SCRIPT);
    page.push_str("</body></html>\n");
    Ok(page)
}

/// Escapes text for HTML content and attribute values.
fn esc(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c if c.is_control() => s.push('?'),
            c => s.push(c),
        }
    }
    s
}

/// `White`, `Black`, or `Red` for Crossroads' second side.
fn side_name(variant: Variant, color: Color) -> &'static str {
    match (color, variant) {
        (Color::White, _) => "White",
        (Color::Black, Variant::DarkCrossroads) => "Red",
        (Color::Black, _) => "Black",
    }
}

/// The document head, the style and the title bar with the step buttons.
fn head(record: &GameRecord, variant: Variant) -> String {
    let title = format!("{} vs {}, {variant}, game {}: {}", record.white, record.black, record.game, record.result);
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    let _ = writeln!(s, "<title>{}</title>\n<style>{STYLE}</style></head><body>", esc(&title));
    let _ = writeln!(
        s,
        "<header><h1>{} ({}) vs {} ({}) &middot; {variant} &middot; game {}</h1>",
        esc(&record.white),
        side_name(variant, Color::White),
        esc(&record.black),
        side_name(variant, Color::Black),
        record.game
    );
    let _ = writeln!(
        s,
        "<p>Result <b>{}</b> ({}: {}) &middot; {} &middot; start <code>{}</code></p>",
        esc(&record.result),
        esc(&record.termination),
        esc(&record.detail),
        esc(&record.time_control),
        esc(&record.start_fen)
    );
    s.push_str(
        "<nav><button data-go=\"first\" title=\"start (Home)\">|&lt;</button><button data-go=\"prev\" \
         title=\"previous ply (left arrow)\">&lt;</button><span id=\"at\">0</span><button data-go=\"next\" \
         title=\"next ply (right arrow)\">&gt;</button><button data-go=\"last\" title=\"end (End)\">&gt;|</button>\
         </nav></header>\n",
    );
    s
}

/// The shapes every board uses, defined once: squares, fog, silhouettes, pieces, marks, labels.
fn defs(variant: Variant) -> String {
    let mut s = String::from(
        "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>\n\
         <pattern id=\"chk\" width=\"80\" height=\"80\" patternUnits=\"userSpaceOnUse\" x=\"16\" y=\"0\">\
         <rect x=\"40\" width=\"40\" height=\"40\" fill=\"#b58863\"/><rect y=\"40\" width=\"40\" height=\"40\" \
         fill=\"#b58863\"/></pattern>\n\
         <g id=\"fog\"><rect width=\"40\" height=\"40\" fill=\"#7d838c\"/><path d=\"M0 10L10 0M0 20L20 0M0 30L30 0\
         M0 40L40 0M10 40L40 10M20 40L40 20M30 40L40 30\" stroke=\"#9aa0a8\" stroke-width=\"2\"/></g>\n\
         <g id=\"lm\"><rect width=\"40\" height=\"40\" fill=\"#f4d03f\" fill-opacity=\"0.6\"/></g>\n\
         <g id=\"bn\"><rect x=\"2\" y=\"2\" width=\"36\" height=\"36\" fill=\"none\" stroke=\"#e02020\" \
         stroke-width=\"3\" stroke-dasharray=\"6 3\"/><path d=\"M29 4L37 12M37 4L29 12\" stroke=\"#e02020\" \
         stroke-width=\"3\"/></g>\n\
         <g id=\"cp\"><circle cx=\"20\" cy=\"20\" r=\"18\" fill=\"none\" stroke=\"#e67e22\" stroke-width=\"3\"/></g>\n\
         <g id=\"pro\"><circle cx=\"34\" cy=\"6\" r=\"4\" fill=\"#8e44ad\"/></g>\n",
    );
    for (id, fill, stroke, text) in [("sw", "#f7f7f7", "#111", "#555"), ("sb", "#222", "#000", "#bbb")] {
        let _ = writeln!(
            s,
            "<g id=\"{id}\"><circle cx=\"20\" cy=\"20\" r=\"15\" fill=\"{fill}\" fill-opacity=\"0.8\" \
             stroke=\"{stroke}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>{}</g>",
            label(20, 26, text, "?")
        );
    }
    for role in Role::ALL.into_iter().filter(|&r| variant.has_role(r)) {
        let letter = variant.letter(role).unwrap_or('?').to_ascii_uppercase().to_string();
        for (c, fill, stroke, text) in [('w', "#fbfbf8", "#111", "#111"), ('b', "#262626", "#000", "#fff")] {
            let _ = writeln!(
                s,
                "<g id=\"{c}{letter}\"><circle cx=\"20\" cy=\"20\" r=\"16\" fill=\"{fill}\" stroke=\"{stroke}\" \
                 stroke-width=\"1.5\"/>{}</g>",
                label(20, 26, text, &letter)
            );
        }
    }
    for width in [6usize, 8] {
        let _ = write!(s, "<g id=\"files{width}\">");
        for file in 0..width {
            let x = LEFT + file * SQ + SQ / 2;
            s.push_str(&label(x, 8 * SQ + 14, "#444", &((b'a' + file as u8) as char).to_string()));
        }
        s.push_str("</g>\n");
    }
    s.push_str("<g id=\"ranks\">");
    for rank in 0..8 {
        s.push_str(&label(LEFT / 2, (7 - rank) * SQ + 25, "#444", &(rank + 1).to_string()));
    }
    s.push_str("</g>\n</defs></svg>\n");
    s
}

/// An SVG text centred on `x`.
fn label(x: usize, y: usize, fill: &str, text: &str) -> String {
    format!(
        "<text x=\"{x}\" y=\"{y}\" fill=\"{fill}\" font-family=\"sans-serif\" font-size=\"15\" font-weight=\"bold\" \
         text-anchor=\"middle\">{text}</text>"
    )
}

/// What a board marks besides its squares.
#[derive(Default)]
struct Marks {
    /// The last move's squares.
    moved: Vec<Square>,
    /// Drops that bounced before the last move.
    bounced: Vec<Square>,
    /// A piece captured by the last move.
    captured: Option<Square>,
}

/// One board as SVG: `cell` says what to draw on each square.
fn board_svg(variant: Variant, board: &str, cell: impl Fn(Square) -> SquareView, marks: &Marks) -> String {
    let width = variant.width() as usize;
    let (w, h) = (LEFT + width * SQ + 4, 8 * SQ + BOTTOM);
    let at = |sq: Square| (LEFT + sq.file() as usize * SQ, (7 - sq.rank() as usize) * SQ);
    let squares: Vec<Square> = Square::all().filter(|sq| variant.board_mask().contains(*sq)).collect();
    let mut s = format!(
        "<svg class=\"board\" data-board=\"{board}\" viewBox=\"0 0 {w} {h}\" width=\"{}\" height=\"{}\">\
         <rect x=\"{LEFT}\" width=\"{}\" height=\"{}\" fill=\"#f0d9b5\"/><rect x=\"{LEFT}\" width=\"{}\" \
         height=\"{}\" fill=\"url(#chk)\"/>",
        (w as f64 * SCALE).round(),
        (h as f64 * SCALE).round(),
        width * SQ,
        8 * SQ,
        width * SQ,
        8 * SQ
    );
    let mut put = |id: &str, sq: Square| {
        let (x, y) = at(sq);
        let _ = write!(s, "<use href=\"#{id}\" x=\"{x}\" y=\"{y}\"/>");
    };
    for &sq in &squares {
        if matches!(cell(sq), SquareView::Fog | SquareView::Silhouette(_)) {
            put("fog", sq);
        }
    }
    marks.moved.iter().for_each(|&sq| put("lm", sq));
    for &sq in &squares {
        match cell(sq) {
            SquareView::Silhouette(c) => put(if c == Color::White { "sw" } else { "sb" }, sq),
            SquareView::Piece(p, promoted) => {
                put(&piece_id(variant, p), sq);
                if promoted {
                    put("pro", sq);
                }
            }
            SquareView::Fog | SquareView::Empty => {}
        }
    }
    marks.bounced.iter().for_each(|&sq| put("bn", sq));
    marks.captured.into_iter().for_each(|sq| put("cp", sq));
    let _ = write!(s, "<use href=\"#files{width}\"/><use href=\"#ranks\"/></svg>");
    s
}

/// The id of a piece's shape: color and upper-case letter (`wK`, `bO`).
fn piece_id(variant: Variant, piece: Piece) -> String {
    let letter = variant.letter(piece.role).unwrap_or('?').to_ascii_uppercase();
    format!("{}{letter}", if piece.color == Color::White { 'w' } else { 'b' })
}

/// The true position as a square function.
fn truth_cell(pos: &Position) -> impl Fn(Square) -> SquareView + '_ {
    |sq| match pos.piece_at(sq) {
        Some(p) => SquareView::Piece(p, pos.promoted().contains(sq)),
        None => SquareView::Empty,
    }
}

/// The squares a move touches (both ends; one for a drop).
fn move_squares(report: &PlyReport) -> Vec<Square> {
    match report.mv.kind {
        MoveKind::Drop(_) => vec![report.mv.to],
        _ => vec![report.mv.from, report.mv.to],
    }
}

/// Frame `n` (0: the start): its heading, the three boards and the engines' lines of that ply.
fn frame(record: &GameRecord, game: &ReplayedGame, n: usize) -> String {
    let variant = game.variant;
    let ply = n.checked_sub(1).map(|i| &game.plies[i]);
    let pos = ply.map_or(&game.start, |p| &p.position);
    let hidden = if n == 0 { "" } else { " hidden" };
    let mut s = format!("<section class=\"frame\" id=\"ply{n}\" data-ply=\"{n}\"{hidden}>\n<h2>");
    match ply {
        None => s.push_str("Start position"),
        Some(p) => {
            let _ = write!(s, "Ply {n}: {} plays {}", side_name(variant, p.mover), esc(&p.text));
            if !p.bounces.is_empty() {
                let _ = write!(s, " <span class=\"bounce\">after bounced {}</span>", esc(&p.bounces.join(", ")));
            }
        }
    }
    if n == game.plies.len() {
        let _ = write!(s, " &middot; <b>{}</b> ({})", esc(&record.result), esc(&record.termination));
    }
    s.push_str("</h2>\n<div class=\"boards\">\n");
    let bounced: Vec<Square> = ply
        .map(|p| p.bounces.iter().filter_map(|b| crate::core::Move::parse(b, variant).ok()).map(|m| m.to).collect())
        .unwrap_or_default();
    let marks = Marks {
        moved: ply.map(|p| move_squares(&p.report)).unwrap_or_default(),
        bounced: bounced.clone(),
        captured: ply.and_then(|p| p.report.captured).map(|(sq, _)| sq),
    };
    let hands = Color::ALL
        .map(|c| format!("{} hand: {}", side_name(variant, c), hand_letters(variant, c, pos.hand(c))))
        .join(" &middot; ");
    let note = if variant.has_hands() { hands } else { String::new() };
    s.push_str(&figure("truth", "True position", &board_svg(variant, "truth", truth_cell(pos), &marks), &note));
    for side in Color::ALL {
        let obs = match ply {
            Some(p) => Observation::after_ply(pos, &p.report, side),
            None => Observation::initial(pos, side),
        };
        let own = ply.is_some_and(|p| p.mover == side);
        let marks = view_marks(&obs, &marks, own);
        let name = if side == Color::White { &record.white } else { &record.black };
        let title = format!("{}'s view ({})", side_name(variant, side), esc(name));
        let board = board_svg(variant, side.name(), |sq| obs.view.square(sq), &marks);
        s.push_str(&figure(side.name(), &title, &board, &view_note(&obs, variant)));
    }
    s.push_str("</div>\n");
    s.push_str(&ply_lines(record, game, n));
    s.push_str("</section>\n");
    s
}

/// The marks a side's view shows: the mover's own move and bounces; for the other side only the
/// squares of the move it now sees, and the capture of its own piece (which it is told).
fn view_marks(obs: &Observation, truth: &Marks, own: bool) -> Marks {
    if own {
        return Marks { moved: truth.moved.clone(), bounced: truth.bounced.clone(), captured: None };
    }
    let seen = obs.view.seen();
    Marks {
        moved: truth.moved.iter().copied().filter(|&sq| seen.contains(sq)).collect(),
        bounced: Vec::new(),
        captured: obs.captured.map(|(sq, _)| sq),
    }
}

/// The line under a view: the side's hand, what it was told of a capture and a Try.
fn view_note(obs: &Observation, variant: Variant) -> String {
    let mut notes = Vec::new();
    if variant.has_hands() {
        notes.push(format!("hand: {}", hand_letters(variant, obs.view.side(), obs.view.hand())));
    }
    if let Some((sq, role)) = obs.captured {
        notes.push(format!("lost its {} on {sq}", variant.letter(role).unwrap_or('?').to_ascii_uppercase()));
    }
    if obs.try_armed {
        notes.push("its Try is armed".to_string());
    }
    if let Some(ep) = obs.view.ep_square() {
        notes.push(format!("may take en passant on {ep}"));
    }
    notes.join(" &middot; ")
}

/// A board with its caption and the note under it.
fn figure(board: &str, title: &str, svg: &str, note: &str) -> String {
    format!(
        "<figure data-board=\"{board}\"><figcaption>{title}</figcaption>{svg}<p class=\"note\">{note}&nbsp;</p></figure>\n"
    )
}

/// Each engine's lines during ply `n` (for the start: the game setup; for the last ply: the end).
fn ply_lines(record: &GameRecord, game: &ReplayedGame, n: usize) -> String {
    let mut s = String::from("<div class=\"lines\">");
    for side in Color::ALL {
        let name = if side == Color::White { &record.white } else { &record.black };
        let mistboard = record.wire[side.index()] == Wire::Mistboard;
        let mut lines: Vec<&Msg> = match n {
            0 => record
                .setup
                .of(side)
                .iter()
                .filter(|m| mistboard || ["position", "side", "observe"].iter().any(|w| m.line.starts_with(w)))
                .collect(),
            _ => record.plies.get(n - 1).map(|p| p.lines.of(side).iter().collect()).unwrap_or_default(),
        };
        if n == game.plies.len() {
            lines.extend(record.end.of(side));
        }
        let _ = write!(s, "<div><h3>{} ({})</h3><pre>", side_name(game.variant, side), esc(name));
        for m in lines.into_iter().filter(|m| m.line != "isready" && m.line != "readyok") {
            let arrow = if m.dir == Dir::In { "&rarr;" } else { "&larr;" };
            if mistboard {
                // A request holds the whole transcript: a summary, the message itself folded.
                let _ = writeln!(
                    s,
                    "<details><summary>{arrow} {}</summary>{}</details>",
                    esc(&summarize(&m.line)),
                    esc(&m.line)
                );
            } else {
                let _ = writeln!(s, "{arrow} {}", esc(&m.line));
            }
        }
        s.push_str("</pre></div>");
    }
    s.push_str("</div>\n");
    s
}

/// The last values an engine gave in its `info` lines during one ply.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct InfoSummary {
    /// `depth`.
    pub depth: Option<String>,
    /// `score cp N` as pawns with a sign (`+0.35`), `score mate N` as `#N`.
    pub score: Option<String>,
    /// `nodes`.
    pub nodes: Option<String>,
    /// `worlds N` inside `info string` (Murk's count of sampled worlds).
    pub worlds: Option<String>,
}

/// Reads the `info` lines an engine wrote (a Mistboard engine's answers: their diagnostics'
/// `scoreCp`, `nodes` and `info`); later values replace earlier ones.
pub fn summarize_info(lines: &[Msg]) -> InfoSummary {
    let mut out = InfoSummary::default();
    let infos = lines.iter().filter(|m| m.dir == Dir::Out).filter_map(|m| match m.line.strip_prefix("info ") {
        Some(info) => Some(info.to_string()),
        None => diagnostics_info(&m.line),
    });
    for line in infos {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, &word) in words.iter().enumerate() {
            let next = words.get(i + 1).map(|w| w.to_string());
            match word {
                "depth" => out.depth = next,
                "nodes" => out.nodes = next,
                "score" => {
                    let value = words.get(i + 2).and_then(|v| v.parse::<i64>().ok());
                    out.score = match (words.get(i + 1), value) {
                        (Some(&"cp"), Some(cp)) => Some(format!("{:+.2}", cp as f64 / 100.0)),
                        (Some(&"mate"), Some(m)) => Some(format!("#{m}")),
                        _ => out.score.take(),
                    };
                }
                "string" => {
                    let rest = &words[i + 1..];
                    if let Some(w) = rest.iter().position(|&w| w == "worlds").and_then(|j| rest.get(j + 1)) {
                        out.worlds = Some(w.to_string());
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    out
}

/// A Mistboard answer's diagnostics as the words of an `info` line (`score cp N nodes N string
/// ...`), if it has any.
fn diagnostics_info(line: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let diagnostics = value.get("response").unwrap_or(&value).get("diagnostics")?;
    let mut words = Vec::new();
    if let Some(cp) = diagnostics.get("scoreCp").and_then(|v| v.as_i64()) {
        words.push(format!("score cp {cp}"));
    }
    if let Some(nodes) = diagnostics.get("nodes").and_then(|v| v.as_u64()) {
        words.push(format!("nodes {nodes}"));
    }
    if let Some(info) = diagnostics.get("info").and_then(|v| v.as_str()) {
        words.push(format!("string {info}"));
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// The move list: one row per frame, with the mover's think time and its `info` values.
fn move_list(record: &GameRecord, game: &ReplayedGame) -> String {
    let mut s = String::from(
        "<aside id=\"list\"><table id=\"moves\"><thead><tr><th>#</th><th>move</th><th>ms</th><th>score</th>\
         <th>depth</th><th>nodes</th><th>worlds</th></tr></thead><tbody>\n\
         <tr data-ply=\"0\" class=\"cur\"><td>0</td><td colspan=\"6\">start</td></tr>\n",
    );
    for (i, ply) in game.plies.iter().enumerate() {
        let n = i + 1;
        let rec = record.plies.get(i);
        let info = rec.map(|p| summarize_info(p.lines.of(ply.mover))).unwrap_or_default();
        let dash = || "-".to_string();
        let bounce = if ply.bounces.is_empty() { "" } else { " <span class=\"bounce\">*</span>" };
        let _ = writeln!(
            s,
            "<tr data-ply=\"{n}\" class=\"{}\"><td>{n}</td><td>{}{bounce}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            ply.mover.name(),
            esc(&ply.text),
            rec.map_or_else(dash, |p| p.think_ms.to_string()),
            esc(&info.score.unwrap_or_else(dash)),
            esc(&info.depth.unwrap_or_else(dash)),
            esc(&info.nodes.unwrap_or_else(dash)),
            esc(&info.worlds.unwrap_or_else(dash)),
        );
    }
    s.push_str("</tbody></table></aside>\n");
    s
}

const STYLE: &str = "body{font:14px/1.35 sans-serif;margin:8px 12px;background:#fafafa;color:#222}\
h1{font-size:18px;margin:0 0 2px}h2{font-size:16px;margin:4px 0}h3{font-size:13px;margin:2px 0}\
header p{margin:0 0 4px}nav button{font:bold 14px monospace;margin-right:4px;padding:2px 10px}\
nav span{display:inline-block;min-width:80px;text-align:center;font-weight:bold}\
main{display:flex;gap:12px;align-items:flex-start}#frames{flex:0 0 auto}\
.boards{display:flex;gap:10px}figure{margin:0}figcaption{font-weight:bold;margin-bottom:2px}\
.note{margin:2px 0;font-size:12px;max-width:300px;min-height:2.6em}\
.lines{display:flex;gap:10px}.lines div{flex:1;min-width:0;max-width:500px}\
pre{margin:0;font-size:11px;white-space:pre-wrap;word-break:break-all;max-height:150px;overflow:auto;\
background:#eee;padding:4px}\
#list{position:relative;max-height:560px;overflow:auto;flex:0 0 auto;background:#fff;border:1px solid #ccc}\
table{border-collapse:collapse;font:12px monospace}td,th{padding:1px 5px;text-align:right}\
tr.black td{color:#555}tr[data-ply]{cursor:pointer}tr.cur td{background:#f4d03f;color:#000}\
.bounce{color:#e02020}.legend{font-size:12px;color:#444}";

const LEGEND: &str = "<p class=\"legend\">Hatched grey: fog (not seen). Dashed disc with ?: a silhouette (an \
occupied square seen only as its color, Crossroads). Yellow: the last move (on a view, only the squares the \
viewer sees). Red dashed square: a drop that bounced. Orange ring: a captured piece. Purple dot: a promoted \
piece. &rarr; lines an engine received, &larr; lines it wrote. Keys: left/right arrows, Home, End; \
<code>#ply=N</code> in the address opens ply N.</p>\n";

const SCRIPT: &str = "<script>
const F=document.querySelectorAll('.frame'),R=document.querySelectorAll('#moves tr[data-ply]'),
L=document.getElementById('list'),A=document.getElementById('at');let cur=0;
function show(n){n=Math.max(0,Math.min(F.length-1,n|0));F[cur].hidden=true;R[cur].classList.remove('cur');
cur=n;F[n].hidden=false;R[n].classList.add('cur');A.textContent=n+' / '+(F.length-1);const r=R[n];
if(r.offsetTop<L.scrollTop||r.offsetTop>L.scrollTop+L.clientHeight-r.offsetHeight)L.scrollTop=r.offsetTop-L.clientHeight/2;}
function go(n){show(n);try{history.replaceState(null,'','#ply='+cur)}catch(e){}}
function fromUrl(){const m=/ply=(\\d+)/.exec(location.hash+' '+location.search);show(m?+m[1]:0)}
const steps={first:()=>0,prev:()=>cur-1,next:()=>cur+1,last:()=>F.length-1};
document.querySelectorAll('button[data-go]').forEach(b=>b.onclick=()=>go(steps[b.dataset.go]()));
R.forEach(r=>r.onclick=()=>go(+r.dataset.ply));
addEventListener('keydown',e=>{const k={ArrowRight:'next',ArrowLeft:'prev',Home:'first',End:'last'}[e.key];
if(k){e.preventDefault();go(steps[k]())}});
addEventListener('hashchange',fromUrl);fromUrl();
</script>
";
