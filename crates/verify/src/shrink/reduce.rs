//! The reduction itself, independent of what is being reduced: remove chunks of a list,
//! halving the chunk size, as long as what is left still fails.

/// Reduces `items` to a sublist (order kept) on which `fails` still holds and from which no
/// single item can be removed without losing the failure ("1-minimal"), given that `fails`
/// holds on `items` itself.
///
/// Chunks of half the list, then a quarter, and so on down to single items are tried for
/// removal from left to right; a removal is kept when the rest still fails. The pass over
/// single items repeats until nothing more can be removed, because removing one item can
/// make another removable (a write whose only reader went away). The result depends only on
/// `items` and on the answers of `fails`, so a deterministic `fails` shrinks the same way on
/// every run. `budget` bounds the calls to `fails`; when it runs out the smallest failing
/// list found so far is returned.
pub fn reduce<T: Clone>(
    items: &[T],
    budget: &mut usize,
    mut fails: impl FnMut(&[T]) -> bool,
) -> Vec<T> {
    let mut current = items.to_vec();
    let mut chunk = current.len().div_ceil(2).max(1);
    loop {
        let mut removed_any = false;
        let mut start = 0;
        while start < current.len() {
            if *budget == 0 {
                return current;
            }
            let end = (start + chunk).min(current.len());
            let candidate: Vec<T> = current[..start]
                .iter()
                .chain(&current[end..])
                .cloned()
                .collect();
            *budget -= 1;
            if fails(&candidate) {
                current = candidate;
                removed_any = true;
            } else {
                start = end;
            }
        }
        if chunk > 1 {
            chunk = chunk.div_ceil(2);
        } else if !removed_any {
            return current;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reduce;

    #[test]
    fn finds_the_one_item_that_matters() {
        let items: Vec<u32> = (0..1000).collect();
        let mut budget = 10_000;
        let out = reduce(&items, &mut budget, |c| c.contains(&617));
        assert_eq!(out, vec![617]);
        assert!(10_000 - budget < 100, "{} calls", 10_000 - budget);
    }

    #[test]
    fn keeps_every_item_of_a_failing_pair_in_order() {
        let items: Vec<u32> = (0..300).collect();
        let mut budget = 10_000;
        let out = reduce(&items, &mut budget, |c| c.contains(&3) && c.contains(&250));
        assert_eq!(out, vec![3, 250]);
    }

    #[test]
    fn dependencies_are_found_by_repeating_the_last_pass() {
        // 9 is needed only while 2 is there; which of them the chunks remove first depends
        // on the order, so the law checked is 1-minimality rather than a fixed list.
        let items: Vec<u32> = (0..12).collect();
        let fails = |c: &[u32]| c.contains(&5) && (c.contains(&9) || !c.contains(&2));
        let mut budget = 10_000;
        let out = reduce(&items, &mut budget, fails);
        assert!(fails(&out));
        for i in 0..out.len() {
            let mut fewer = out.clone();
            fewer.remove(i);
            assert!(!fails(&fewer), "{out:?} is not 1-minimal");
        }
    }

    #[test]
    fn the_budget_is_respected_and_the_best_so_far_returned() {
        let items: Vec<u32> = (0..1000).collect();
        let mut budget = 5;
        let out = reduce(&items, &mut budget, |c| c.contains(&617));
        assert_eq!(budget, 0);
        assert!(out.contains(&617) && out.len() < 1000);
    }
}
