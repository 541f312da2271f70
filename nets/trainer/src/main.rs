//! `murk-train`: trains one of Murk's evaluation nets from the samples `murk datagen` writes, and
//! writes the net file the engine loads (`murk::eval::net`), a check file of the trainer's own
//! outputs on validation positions (the engine's tests compare its inference with them) and a
//! plot of the training and validation loss per epoch.
//!
//! Training is done with candle (Hugging Face's tensor library, pure Rust, CPU): the net is the
//! engine's, so the trainer reads the samples and writes the file with the engine's own code.

use anyhow::{bail, Context, Result};
use candle_core::{DType, Device, Tensor};
use candle_nn::{linear, AdamW, Linear, Module, Optimizer, ParamsAdamW, VarBuilder, VarMap};
use clap::Parser;
use murk::core::Variant;
use murk::eval::features::{position_of, INPUTS};
use murk::eval::net::{Base, Net};
use murk::eval::samples::Sample;
use murk::eval::NET_LIMIT;
use plotters::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Validation positions written to the check file.
const CHECK_POSITIONS: usize = 200;

#[derive(Parser, Debug)]
#[command(about = "Trains a Murk evaluation net from `murk datagen` samples")]
struct Args {
    /// The game the samples are from.
    #[arg(long)]
    variant: Variant,
    /// The folder `murk datagen --out` wrote (train.bin and valid.bin).
    #[arg(long)]
    data: PathBuf,
    /// The net file to write (e.g. nets/dark-chess.nnue); the check file and the plot are written
    /// beside it (`.check.txt`, `.png`).
    #[arg(long)]
    out: PathBuf,
    /// Most passes over the training set.
    #[arg(long, default_value_t = 16)]
    epochs: usize,
    /// Stop after this many epochs without a lower validation loss; the net written is the one
    /// of the epoch with the lowest.
    #[arg(long, default_value_t = 3)]
    patience: usize,
    /// Units of the first hidden layer.
    #[arg(long, default_value_t = 32)]
    hidden1: usize,
    /// Units of the second hidden layer.
    #[arg(long, default_value_t = 8)]
    hidden2: usize,
    /// Samples per optimiser step.
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Learning rate of the first epoch (AdamW); it decays by `--decay` each epoch.
    #[arg(long, default_value_t = 1e-3)]
    lr: f64,
    /// Factor applied to the learning rate after each epoch.
    #[arg(long, default_value_t = 0.8)]
    decay: f64,
    /// Weight of the teacher's score (of the world itself) in the target.
    #[arg(long, default_value_t = 0.75)]
    lambda: f32,
    /// Weight of Murk's value of the position over its belief (what the fog costs) in the target;
    /// the rest, after `--lambda`, is the game's result.
    #[arg(long, default_value_t = 0.0)]
    belief_weight: f32,
    /// Pawns at which the win probability of a score is sigmoid(1) (the scale of the loss).
    #[arg(long, default_value_t = 4.0)]
    scale: f32,
    /// What the net's output is added to: `hand` (the net learns what the hand evaluation
    /// misses) or `none`.
    #[arg(long, default_value = "hand", value_parser = ["hand", "none"])]
    base: String,
    /// Seed of the shuffling and the initial weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A TrueType font for the plot's labels.
    #[arg(long, default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")]
    font: PathBuf,
}

/// The net as candle layers: the same shape as `murk::eval::net::Net`.
struct Model {
    l1: Linear,
    l2: Linear,
    l3: Linear,
    /// The weight of the base score in the prediction (learned, from 1).
    base_weight: Tensor,
}

impl Model {
    fn new(vb: VarBuilder, hidden1: usize, hidden2: usize) -> Result<Model> {
        Ok(Model {
            l1: linear(INPUTS, hidden1, vb.pp("l1"))?,
            l2: linear(hidden1, hidden2, vb.pp("l2"))?,
            l3: linear(hidden2, 1, vb.pp("l3"))?,
            base_weight: vb.get_with_hints((), "base_weight", candle_nn::Init::Const(1.0))?,
        })
    }

    /// Scores in pawns, one per row of `x`.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let a = self.l1.forward(x)?.clamp(0f32, 1f32)?;
        let b = self.l2.forward(&a)?.relu()?;
        Ok(self.l3.forward(&b)?.squeeze(1)?)
    }

    /// The engine's net with these weights.
    fn to_net(&self, variant: Variant, base: Base, hidden1: usize, hidden2: usize) -> Result<Net> {
        let w1: Vec<Vec<f32>> = self.l1.weight().to_vec2()?; // hidden1 rows of INPUTS
        let mut net = Net::zeros(variant, base, hidden1, hidden2);
        for (k, row) in w1.iter().enumerate() {
            for (i, &w) in row.iter().enumerate() {
                net.w1[i * hidden1 + k] = w;
            }
        }
        let bias = |l: &Linear| -> Result<Vec<f32>> { Ok(l.bias().context("a bias")?.to_vec1()?) };
        net.b1 = bias(&self.l1)?;
        net.w2 = self.l2.weight().t()?.flatten_all()?.to_vec1()?; // hidden1 rows of hidden2
        net.b2 = bias(&self.l2)?;
        net.w3 = self.l3.weight().flatten_all()?.to_vec1()?;
        net.b3 = bias(&self.l3)?[0];
        net.base_weight = self.base_weight.to_scalar()?;
        Ok(net)
    }
}

/// A training position: its sample and the base score the net's output is added to (pawns).
struct Example {
    sample: Sample,
    base: f32,
}

/// A score's win probability.
fn win_probability(cp: i16, args: &Args) -> f32 {
    1.0 / (1.0 + (-(cp as f32 / 100.0) / args.scale).exp())
}

/// What the net is trained towards: the teacher's, the belief's and the result's win
/// probabilities, mixed by `--lambda` and `--belief-weight`.
fn mixed_target(s: &Sample, args: &Args) -> f32 {
    let result = (s.result as f32 + 1.0) / 2.0;
    args.lambda * win_probability(s.score_cp, args)
        + args.belief_weight * win_probability(s.belief_cp, args)
        + (1.0 - args.lambda - args.belief_weight) * result
}

/// The game's result alone (1, 0.5, 0): the yardstick on which nets trained on different
/// mixes are compared.
fn result_target(s: &Sample, _: &Args) -> f32 {
    (s.result as f32 + 1.0) / 2.0
}

/// A batch as tensors: dense inputs, the base scores and the target win probability.
fn batch(
    examples: &[&Example],
    args: &Args,
    target: fn(&Sample, &Args) -> f32,
    device: &Device,
) -> Result<(Tensor, Tensor, Tensor)> {
    let mut x = vec![0f32; examples.len() * INPUTS];
    let mut t = Vec::with_capacity(examples.len());
    let base: Vec<f32> = examples.iter().map(|e| e.base).collect();
    for (row, s) in examples.iter().map(|e| &e.sample).enumerate() {
        for &i in &s.active {
            x[row * INPUTS + i as usize] = 1.0;
        }
        t.push(target(s, args));
    }
    let n = examples.len();
    Ok((Tensor::from_vec(x, (n, INPUTS), device)?, Tensor::from_vec(base, n, device)?, Tensor::from_vec(t, n, device)?))
}

/// Mean squared error between the predicted and the target win probability; without a model,
/// the base's own.
fn loss(model: Option<&Model>, x: &Tensor, base: &Tensor, t: &Tensor, scale: f32) -> Result<Tensor> {
    let score = match model {
        Some(model) => (model.forward(x)? + base.broadcast_mul(&model.base_weight)?)?,
        None => base.clone(),
    };
    let p = candle_nn::ops::sigmoid(&(score / scale as f64)?)?;
    Ok((p - t)?.sqr()?.mean_all()?)
}

/// Mean loss over a whole set against `target`, batch by batch.
fn set_loss(
    model: Option<&Model>,
    set: &[Example],
    args: &Args,
    target: fn(&Sample, &Args) -> f32,
    device: &Device,
) -> Result<f32> {
    let mut sum = 0.0;
    for chunk in set.chunks(4096) {
        let refs: Vec<&Example> = chunk.iter().collect();
        let (x, base, t) = batch(&refs, args, target, device)?;
        sum += loss(model, &x, &base, &t, args.scale)?.to_scalar::<f32>()? * chunk.len() as f32;
    }
    Ok(sum / set.len().max(1) as f32)
}

/// The samples of a file, each with its base score.
fn read(path: &Path, variant: Variant, base: Base) -> Result<Vec<Example>> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let samples = Sample::read_all(&mut BufReader::new(file))
        .with_context(|| format!("{} is not a sample file", path.display()))?;
    samples
        .into_iter()
        .map(|sample| {
            let base = match base {
                Base::Zero => 0.0,
                Base::Hand => {
                    let pos =
                        position_of(variant, &sample.active).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                    // A decided position's score would swamp the loss.
                    murk::eval::score(&pos).clamp(-NET_LIMIT, NET_LIMIT)
                }
            };
            Ok(Example { sample, base })
        })
        .collect()
}

/// Writes the loss curves as a PNG.
fn plot(path: &Path, font: &Path, title: &str, losses: &[(f32, f32)]) -> Result<()> {
    let bytes = std::fs::read(font).with_context(|| format!("the plot's font {}", font.display()))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into_boxed_slice()))
        .map_err(|_| anyhow::anyhow!("{} is not a usable font", font.display()))?;
    let root = BitMapBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = losses.iter().flat_map(|&(a, b)| [a, b]).fold(0f32, f32::max) * 1.1;
    let bottom = losses.iter().flat_map(|&(a, b)| [a, b]).fold(f32::MAX, f32::min) * 0.9;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(1f32..losses.len().max(2) as f32, bottom..top)?;
    chart.configure_mesh().x_desc("epoch").y_desc("loss (MSE of win probability)").draw()?;
    let curve = |pick: fn(&(f32, f32)) -> f32| losses.iter().enumerate().map(move |(i, l)| (i as f32 + 1.0, pick(l)));
    chart
        .draw_series(LineSeries::new(curve(|l| l.0), BLUE.stroke_width(2)))?
        .label("training")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(curve(|l| l.1), RED.stroke_width(2)))?
        .label("validation")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

/// Draws every weight from the seeded stream (uniform, +-1/sqrt(fan-in) as candle's own default),
/// so that a run is reproducible: candle's CPU generator cannot be seeded.
/// With a base, the output layer starts at zero, so that training starts from the base's scores.
fn seed_weights(vars: &VarMap, rng: &mut Xoshiro256PlusPlus, device: &Device, base: Base) -> Result<()> {
    let data = vars.data().lock().map_err(|_| anyhow::anyhow!("the weights' lock is poisoned"))?;
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    for layer in ["l1", "l2", "l3"] {
        let weight = &data[&format!("{layer}.weight")];
        let fan_in = weight.dims()[1];
        let bound = 1.0 / (fan_in as f32).sqrt();
        for name in names.iter().filter(|n| n.starts_with(&format!("{layer}."))) {
            let var = &data[*name];
            let zero = layer == "l3" && base == Base::Hand;
            let values: Vec<f32> =
                (0..var.elem_count()).map(|_| if zero { 0.0 } else { rng.gen_range(-bound..bound) }).collect();
            var.set(&Tensor::from_vec(values, var.dims(), device)?)?;
        }
    }
    Ok(())
}

/// A copy of every weight, by name.
type Snapshot = Vec<(String, Tensor)>;

/// The weights now, as a [`Snapshot`].
fn snapshot(vars: &VarMap) -> Result<Snapshot> {
    let data = vars.data().lock().map_err(|_| anyhow::anyhow!("the weights' lock is poisoned"))?;
    data.iter().map(|(name, var)| Ok((name.clone(), var.as_tensor().copy()?))).collect()
}

/// Puts back the weights of a [`snapshot`].
fn restore(vars: &VarMap, weights: &Snapshot) -> Result<()> {
    let data = vars.data().lock().map_err(|_| anyhow::anyhow!("the weights' lock is poisoned"))?;
    for (name, tensor) in weights {
        data[name].set(tensor)?;
    }
    Ok(())
}

fn main() -> Result<()> {
    train(&Args::parse()).map(|_| ())
}

/// Trains the net `args` describe and writes its files; returns the training and validation loss
/// of each epoch.
fn train(args: &Args) -> Result<Vec<(f32, f32)>> {
    let started = Instant::now();
    let weights_ok = |w: f32| (0.0..=1.0).contains(&w);
    if !weights_ok(args.lambda) || !weights_ok(args.belief_weight) || !weights_ok(args.lambda + args.belief_weight) {
        bail!("--lambda and --belief-weight are shares of the target: each in 0..=1, and their sum too");
    }
    let base = if args.base == "hand" { Base::Hand } else { Base::Zero };
    let train = read(&args.data.join("train.bin"), args.variant, base)?;
    let valid = read(&args.data.join("valid.bin"), args.variant, base)?;
    if train.is_empty() || valid.is_empty() {
        bail!("{}: the training and the validation set must both hold samples", args.data.display());
    }
    eprintln!("{}: {} training and {} validation samples", args.variant, train.len(), valid.len());
    let device = Device::Cpu;
    let vars = VarMap::new();
    let model = Model::new(VarBuilder::from_varmap(&vars, DType::F32, &device), args.hidden1, args.hidden2)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    seed_weights(&vars, &mut rng, &device, base)?;
    if base == Base::Hand {
        println!(
            "the hand evaluation alone: train loss {:.6}, validation loss {:.6}",
            set_loss(None, &train, args, mixed_target, &device)?,
            set_loss(None, &valid, args, mixed_target, &device)?
        );
    }
    let params = ParamsAdamW { lr: args.lr, weight_decay: 0.0, ..ParamsAdamW::default() };
    let mut optimiser = AdamW::new(vars.all_vars(), params)?;
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut losses = Vec::new();
    let mut lr = args.lr;
    let mut best: Option<(usize, f32, Snapshot)> = None;
    for epoch in 1..=args.epochs {
        order.shuffle(&mut rng);
        for chunk in order.chunks(args.batch) {
            let refs: Vec<&Example> = chunk.iter().map(|&i| &train[i]).collect();
            let (x, base, t) = batch(&refs, args, mixed_target, &device)?;
            optimiser.backward_step(&loss(Some(&model), &x, &base, &t, args.scale)?)?;
        }
        let train_loss = set_loss(Some(&model), &train, args, mixed_target, &device)?;
        let valid_loss = set_loss(Some(&model), &valid, args, mixed_target, &device)?;
        println!(
            "epoch {epoch}/{}: train loss {train_loss:.6}, validation loss {valid_loss:.6} (lr {lr:.2e}, {:.0} s)",
            args.epochs,
            started.elapsed().as_secs_f64()
        );
        losses.push((train_loss, valid_loss));
        if best.as_ref().is_none_or(|b| valid_loss < b.1) {
            best = Some((epoch, valid_loss, snapshot(&vars)?));
        } else if best.as_ref().is_some_and(|b| epoch - b.0 >= args.patience) {
            break;
        }
        lr *= args.decay;
        optimiser.set_learning_rate(lr);
    }
    let (best_epoch, best_loss, weights) = best.context("no epoch was trained")?;
    restore(&vars, &weights)?;
    println!(
        "kept epoch {best_epoch} (validation loss {best_loss:.6}; against the game result alone {:.6}, the hand evaluation's {:.6})",
        set_loss(Some(&model), &valid, args, result_target, &device)?,
        set_loss(None, &valid, args, result_target, &device)?
    );
    let net = model.to_net(args.variant, base, args.hidden1, args.hidden2)?;
    if base == Base::Hand {
        println!("the hand evaluation's weight: {:.3}", net.base_weight);
    }
    std::fs::write(&args.out, net.to_bytes()).with_context(|| format!("cannot write {}", args.out.display()))?;
    // The trainer's own outputs on validation positions, for the engine's inference test.
    let check: Vec<&Example> = valid.iter().take(CHECK_POSITIONS).collect();
    let (x, _, _) = batch(&check, args, mixed_target, &device)?;
    let outputs: Vec<f32> = model.forward(&x)?.to_vec1()?;
    let check_path = args.out.with_extension("check.txt");
    let mut file =
        std::fs::File::create(&check_path).with_context(|| format!("cannot write {}", check_path.display()))?;
    writeln!(file, "# {}: the trainer's score in pawns, then the active inputs", args.variant)?;
    for (e, out) in check.iter().zip(&outputs) {
        let inputs: Vec<String> = e.sample.active.iter().map(u16::to_string).collect();
        writeln!(file, "{out} {}", inputs.join(" "))?;
    }
    let png = args.out.with_extension("png");
    let title = format!("{}: {} samples, {}-{}-{}-1", args.variant, train.len(), INPUTS, args.hidden1, args.hidden2);
    plot(&png, &args.font, &title, &losses)?;
    println!(
        "wrote {} ({} bytes), {} and {} in {:.0} s",
        args.out.display(),
        std::fs::metadata(&args.out)?.len(),
        check_path.display(),
        png.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(losses)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small data set of Murk's own games, labelled by its own search (no teacher needed).
    fn data(variant: Variant, dir: &Path) {
        let args = murk::datagen::DatagenArgs {
            variant,
            games: 6,
            seed: 5,
            nodes: 2_000,
            worlds: 2,
            random_plies: 6,
            random_rate: 0.05,
            max_plies: 80,
            teacher: None,
            teacher_nodes: 300,
            eval: "hand".into(),
            jobs: 2,
            valid_every: 3,
            out: dir.to_path_buf(),
            shard: Default::default(),
            resume: false,
        };
        murk::datagen::run(&args, &mut Vec::new()).unwrap();
    }

    #[test]
    fn the_target_mixes_the_teacher_the_belief_and_the_result() {
        let parse = |lambda: &str, belief: &str| {
            Args::parse_from([
                "murk-train",
                "--variant",
                "dark-chess",
                "--data",
                "/nonexistent",
                "--out",
                "/nonexistent/net.nnue",
                "--lambda",
                lambda,
                "--belief-weight",
                belief,
            ])
        };
        let sample =
            Sample { active: Default::default(), score_cp: 0, result: -1, belief_cp: murk::eval::samples::MAX_CP };
        let args = parse("0.5", "0.25");
        let expected = 0.5 * 0.5 + 0.25 * win_probability(sample.belief_cp, &args);
        assert!((mixed_target(&sample, &args) - expected).abs() < 1e-6);
        assert!(win_probability(sample.belief_cp, &args) > 0.99);
        assert_eq!(result_target(&sample, &args), 0.0);
        // Given to the result instead, the belief's share lowers the target: the game was lost
        // where the belief saw a win.
        assert!(mixed_target(&sample, &parse("0.5", "0")) < mixed_target(&sample, &args) - 0.1);
        let err = train(&parse("0.5", "0.75")).unwrap_err();
        assert!(err.to_string().contains("shares of the target"), "{err}");
    }

    #[test]
    fn a_trained_net_loads_and_computes_what_the_trainer_computed() {
        let dir = std::env::temp_dir().join(format!("murk-train-test-{}", std::process::id()));
        for (variant, base) in [(Variant::DarkCrazyhouse, "hand"), (Variant::DarkCrossroads, "none")] {
            let data_dir = dir.join(variant.name());
            data(variant, &data_dir);
            let out = data_dir.join("net.nnue");
            let args = Args::parse_from([
                "murk-train",
                "--variant",
                variant.name(),
                "--data",
                data_dir.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--epochs",
                "4",
                "--hidden1",
                "32",
                "--hidden2",
                "8",
                "--base",
                base,
                "--belief-weight",
                "0.25",
            ]);
            let losses = train(&args).unwrap();
            assert!(!losses.is_empty() && losses.iter().all(|(t, v)| t.is_finite() && v.is_finite()));
            assert!(losses.last().unwrap().0 < losses[0].0 * 1.5, "{variant}: the training loss {losses:?}");
            let net = Net::load(&out).unwrap();
            assert_eq!((net.variant, net.hidden1, net.hidden2), (variant, 32, 8));
            let check = std::fs::read_to_string(out.with_extension("check.txt")).unwrap();
            let mut lines = 0;
            for line in check.lines().filter(|l| !l.starts_with('#')) {
                let mut words = line.split_whitespace();
                let expected: f32 = words.next().unwrap().parse().unwrap();
                let inputs: Vec<u16> = words.map(|w| w.parse().unwrap()).collect();
                let got = net.forward(&inputs);
                assert!((got - expected).abs() <= 1e-4 * (1.0 + expected.abs()), "{variant}: {got} vs {expected}");
                lines += 1;
            }
            assert!(lines > 0, "{variant}: an empty check file");
            assert!(std::fs::metadata(out.with_extension("png")).unwrap().len() > 1000, "{variant}: the plot");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
