//! An in-process engine for the referee (the simple players over an information state, which
//! itself rejects any observation that contradicts what the engine knows), and the leak audit
//! over many random games played through the real referee code.

use murk::core::{Color, Square, Variant};
use murk::rules::Position;
use murk::runner::record::Termination;
use murk::runner::{
    audit_record, play_game, EngineHandle, EngineInit, EngineIo, GameRecord, GameSetup, IoFailure, TimeControl,
};
use murk::view::InfoState;
use murk::view::Observation;
use murk::view::SimplePlayer;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// A protocol-speaking engine living in the test process.
pub struct LocalEngine {
    player: SimplePlayer,
    variant: Variant,
    start: Option<Position>,
    info: Option<InfoState>,
    rng: Xoshiro256PlusPlus,
    out: VecDeque<String>,
}

impl LocalEngine {
    /// An engine playing `player`.
    pub fn new(player: SimplePlayer) -> LocalEngine {
        LocalEngine {
            player,
            variant: Variant::DarkChess,
            start: None,
            info: None,
            rng: Xoshiro256PlusPlus::seed_from_u64(0),
            out: VecDeque::new(),
        }
    }

    fn info(&mut self) -> &mut InfoState {
        self.info.as_mut().expect("a game was set up")
    }

    fn handle(&mut self, line: &str) {
        let (word, args) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "uci" => {
                self.out.push_back("id name local".into());
                self.out.push_back("option name Seed type spin default 0 min 0 max 9223372036854775807".into());
                self.out.push_back("uciok".into());
            }
            "isready" => self.out.push_back("readyok".into()),
            "setoption" => self.setoption(args),
            "position" => {
                let pos = match args.strip_prefix("fen ") {
                    Some(fen) => Position::from_fen(self.variant, fen).expect("runner sends a valid FEN"),
                    None => Position::start(self.variant),
                };
                self.start = Some(pos);
            }
            "side" => {
                let side = Color::from_name(args).expect("side white/black");
                self.info = Some(InfoState::new(self.start.clone().expect("position before side"), side));
            }
            "go" => {
                let (player, mut rng) = (self.player, self.rng.clone());
                let mv = player.choose(self.info(), &mut rng).expect("a move when asked");
                self.rng = rng;
                let mv = self.info().send_move(mv).expect("own move legal from the view");
                self.out.push_back(format!("bestmove {}", mv.to_uci(self.variant)));
            }
            "observe" => {
                let (variant, side) = (self.variant, self.info().side());
                let (view, start) = args.strip_suffix(" start").map_or((args, false), |v| (v, true));
                let obs = Observation::parse_args(variant, side, view).expect("observe parses");
                if start {
                    self.info().check_start_view(&obs).expect("the start view is the position's");
                } else {
                    self.info().observe(obs).expect("observation consistent with what the engine knows");
                }
            }
            "bounce" => {
                let sq = Square::parse(args).expect("bounce square");
                self.info().bounce(sq).expect("bounce answers our drop");
            }
            "gameover" => self.info().finish(),
            _ => {}
        }
    }

    fn setoption(&mut self, args: &str) {
        let rest = args.strip_prefix("name ").unwrap_or(args);
        let (name, value) = rest.split_once(" value ").unwrap_or((rest, ""));
        match name {
            "UCI_Variant" => self.variant = value.parse().expect("variant"),
            "Seed" => self.rng = Xoshiro256PlusPlus::seed_from_u64(value.parse().expect("seed")),
            _ => {}
        }
    }
}

impl EngineIo for LocalEngine {
    fn send(&mut self, line: &str) -> Result<(), IoFailure> {
        self.handle(line);
        Ok(())
    }

    fn recv(&mut self, _deadline: Instant) -> Result<String, IoFailure> {
        self.out.pop_front().ok_or(IoFailure::Timeout)
    }

    fn try_recv(&mut self) -> Result<Option<String>, IoFailure> {
        Ok(self.out.pop_front())
    }
}

/// A started in-process engine.
pub fn local_handle(player: SimplePlayer, variant: Variant) -> EngineHandle {
    let init = EngineInit {
        variant,
        options: Vec::new(),
        name: Some(player.name().to_string()),
        fallback_name: "local".into(),
        stall: Duration::from_secs(1),
    };
    EngineHandle::start(Box::new(LocalEngine::new(player)), &init).expect("local handshake")
}

/// Plays one in-process game from the variant's start.
pub fn local_game(variant: Variant, seed: u64, players: [SimplePlayer; 2], max_plies: usize) -> GameRecord {
    let [mut white, mut black] = players.map(|p| local_handle(p, variant));
    let setup = GameSetup {
        game: seed as usize + 1,
        pair: seed as usize / 2 + 1,
        start: Position::start(variant),
        tc: [TimeControl::Nodes(1); 2],
        margin: Duration::from_millis(100),
        stall: Duration::from_secs(1),
        max_plies: Some(max_plies),
        seeds: [seed * 2 + 1, seed * 2 + 2],
    };
    play_game(&setup, [&mut white, &mut black]).record
}

#[test]
fn audit_every_message_matches_the_view_and_reveals_nothing_unseen() {
    for variant in Variant::ALL {
        let (mut observes, mut bounces, mut plies, mut rule_ends) = (0, 0, 0, 0);
        for seed in 0..150 {
            let players = match seed % 3 {
                0 => [SimplePlayer::Random, SimplePlayer::Greedy],
                1 => [SimplePlayer::Greedy, SimplePlayer::Random],
                _ => [SimplePlayer::Random, SimplePlayer::Random],
            };
            let record = local_game(variant, seed, players, 400);
            let counts = audit_record(&record).unwrap_or_else(|e| panic!("{variant} seed {seed}: {e}"));
            let termination = record.termination().expect("termination word");
            assert!(
                matches!(termination, Termination::Rule(_) | Termination::Adjudication),
                "{variant} seed {seed}: {}",
                record.detail
            );
            rule_ends += usize::from(matches!(termination, Termination::Rule(_)));
            assert_eq!(counts.observes, 2 * record.moves.len());
            observes += counts.observes;
            bounces += counts.bounces;
            plies += record.moves.len();
        }
        assert!(plies > 5000 && observes == 2 * plies, "{variant}: {plies} plies");
        eprintln!("{variant}: {plies} plies, {observes} observe lines, {bounces} bounces, {rule_ends} rule endings");
        assert!(rule_ends > 100, "{variant}: only {rule_ends} games ended by the rules");
        if variant.has_hands() {
            assert!(bounces > 0, "no bounce was exercised in {variant}");
        }
    }
}

#[test]
fn audit_catches_a_view_that_reveals_hidden_squares() {
    let record = local_game(Variant::DarkCrazyhouse, 3, [SimplePlayer::Random, SimplePlayer::Random], 40);
    audit_record(&record).expect("untouched record passes");
    // Show White the black rook on a8, truly there but in White's fog after ply 1.
    let mut leaked = record.clone();
    let white_obs = leaked.plies[0].lines.white.iter_mut().find(|m| m.line.starts_with("observe")).expect("observe");
    assert!(white_obs.line.starts_with("observe ????????/"), "{}", white_obs.line);
    white_obs.line = white_obs.line.replacen("observe ?", "observe r", 1);
    let err = audit_record(&leaked).expect_err("a leak must be caught");
    assert!(err.problem.contains("a8") && err.problem.contains("not visible"), "{err}");
    // Give White the line Black received: another view entirely.
    let mut swapped = record.clone();
    let black_line = swapped.plies[0].lines.black.iter().find(|m| m.line.starts_with("observe")).cloned();
    let white_obs = swapped.plies[0].lines.white.iter_mut().find(|m| m.line.starts_with("observe")).expect("observe");
    white_obs.line = black_line.expect("black observe").line;
    assert!(audit_record(&swapped).is_err(), "the other side's view must be caught");
    // An extra message about the game (the opponent's move) is not allowed at all.
    let mut told = record.clone();
    let mv = told.moves[0].clone();
    told.plies[0].lines.black.push(murk::runner::line_engine::Msg {
        dir: murk::runner::line_engine::Dir::In,
        line: format!("position startpos moves {mv}"),
        t_ms: 0,
    });
    assert!(audit_record(&told).is_err(), "the opponent's move must not be sent");
}
