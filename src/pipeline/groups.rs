//! Consecutive groups of items whose sizes add up to at most a bound: how the cross-run stage
//! (month shards) and the history stage (configurations) bound the runs they hold in memory
//! at once while still working on a group in parallel. Uses nothing else.

/// Item indexes (in order) grouped so that a group's `sizes` add up to at most `limit`; an
/// item larger than `limit` is a group of its own.
pub(super) fn within(limit: usize, sizes: impl Iterator<Item = usize>) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut total = 0;
    for (i, size) in sizes.enumerate() {
        match groups.last_mut() {
            Some(group) if total + size <= limit => {
                group.push(i);
                total += size;
            }
            _ => {
                groups.push(vec![i]);
                total = size;
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_grouped_up_to_the_limit_and_a_larger_one_alone() {
        let sizes = [250, 250, 1, 501, 3, 4];
        assert_eq!(within(500, sizes.into_iter()), vec![vec![0, 1], vec![2], vec![3], vec![4, 5]]);
        assert_eq!(within(500, [0, 500, 0].into_iter()), vec![vec![0, 1, 2]]);
        assert!(within(500, std::iter::empty()).is_empty());
    }
}
