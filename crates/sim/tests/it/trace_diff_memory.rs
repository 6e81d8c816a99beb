//! `diff_traces` streams: comparing two generated traces of 40 000 records (about 12 MB
//! each, produced on the fly, never held in memory) must not allocate more than a bounded
//! amount at any time. The allocator of this test binary counts the live bytes of the
//! thread being measured and keeps their peak (the other tests of the binary run at the
//! same time on other threads, and their allocations must not count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{BufReader, Read};
use warpkit_sim::trace_diff::{diff_traces, DiffOptions, DiffOutcome};

struct Counting;

thread_local! {
    /// Whether this thread's allocations are being counted.
    static TRACKED: Cell<bool> = const { Cell::new(false) };
    /// Bytes this thread allocated and has not freed since counting started (negative when
    /// it frees older memory).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The most `LIVE` has been.
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Add `delta` bytes to this thread's live count if it is being counted.
fn count(delta: isize) {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = TRACKED.try_with(|t| {
        if t.get() {
            let now = LIVE.with(|l| {
                l.set(l.get() + delta);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(now)));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are
// updated besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }
}

/// The peak of this thread's live bytes while `f` runs.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, isize) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    TRACKED.with(|t| t.set(true));
    let r = f();
    TRACKED.with(|t| t.set(false));
    (r, PEAK.with(Cell::get))
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A trace of `records` vector writes, generated as it is read; record `odd` (1-based) has
/// lane 17 of its write changed.
struct Generated {
    next: u64,
    records: u64,
    odd: u64,
    pending: Vec<u8>,
    at: usize,
}

impl Generated {
    fn new(records: u64, odd: u64) -> Generated {
        Generated {
            next: 0,
            records,
            odd,
            pending: b"{\"schema\":\"warpkit-trace\",\"version\":1}\n".to_vec(),
            at: 0,
        }
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            if self.next == self.records {
                return Ok(0);
            }
            self.next += 1;
            let step = self.next;
            self.pending.clear();
            self.at = 0;
            let mut lanes = String::new();
            for l in 0..32u64 {
                let v = if step == self.odd && l == 17 {
                    1
                } else {
                    step * 32 + l
                };
                if l > 0 {
                    lanes.push(',');
                }
                lanes.push_str(&format!("[{l},{v}]"));
            }
            self.pending.extend_from_slice(
                format!(
                    "{{\"workgroup\":[0,0,0],\"warp\":0,\"step\":{step},\"pc\":{},\"encoding\":\"0x00000001\",\"asm\":\"add v7, v1, v2\",\"exec\":4294967295,\"v\":[{{\"reg\":7,\"lanes\":[{lanes}]}}],\"u\":[],\"exec_write\":null,\"csr\":[],\"trap\":null,\"retired\":[],\"end\":false}}\n",
                    step % 4096 * 4
                )
                .as_bytes(),
            );
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn large_traces_in_bounded_memory() {
    const N: u64 = 40_000;
    let (report, peak) = peak_of(|| {
        let a = BufReader::new(Generated::new(N, 0));
        let b = BufReader::new(Generated::new(N, N - 10));
        diff_traces(a, b, &DiffOptions::default()).unwrap()
    });
    let DiffOutcome::Different(d) = report.outcome else {
        panic!("the traces differ")
    };
    assert_eq!(d.record, N - 10);
    assert_eq!(d.what, "v7 lane 17 (v[0].lanes[17][1])");
    // The traces are about 24 MB together; a few records and buffers are kilobytes.
    assert!(peak < 1 << 20, "peak allocation {peak} bytes");

    let a = BufReader::new(Generated::new(N / 4, 0));
    let b = BufReader::new(Generated::new(N / 4, 0));
    let report = diff_traces(a, b, &DiffOptions::default()).unwrap();
    assert_eq!(report.outcome, DiffOutcome::Equal { records: N / 4 });
}
