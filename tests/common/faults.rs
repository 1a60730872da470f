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

/// `items` when [`exhaustive`], otherwise every `every`-th of them (the first, the
/// `every + 1`-th, …): the real-input suites check each chosen item fully either way.
pub fn sample_items<T>(items: Vec<T>, every: usize) -> Vec<T> {
    if exhaustive() || every <= 1 {
        return items;
    }
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0)
        .map(|(_, x)| x)
        .collect()
}
