//! How much of a fault-injection enumeration a run tries.

/// Whether the exhaustive suites run (every crash point of every enumeration):
/// `GENESIS_EXHAUSTIVE=1`, which `.ci/run` sets. A plain `cargo test` samples instead.
pub fn exhaustive() -> bool {
    std::env::var("GENESIS_EXHAUSTIVE").is_ok_and(|v| v == "1")
}

/// The fault-injection steps `1..=n` to try: every one when [`exhaustive`], otherwise the
/// first and last three and every `stride`-th step between, offset so that successive
/// strides land on different kinds of step.
pub fn sample_steps(n: usize, stride: usize) -> Vec<usize> {
    if exhaustive() || n <= 8 {
        return (1..=n).collect();
    }
    (1..=n)
        .filter(|&i| i <= 3 || i + 3 > n || i % stride == 1 || i % (stride + 1) == 2)
        .collect()
}
