//! Tests of the shim's BPF arena (sim/shim/shim.c, `sim_arena_*`): the
//! semantics of kernel/bpf/arena.c (arena_alloc_pages, arena_free_pages,
//! arena_reserve_pages) over kernel/bpf/range_tree.c's best-fit free-range
//! tree. They call the shim's functions in a loaded copy of arbor's object
//! (every scheduler object carries the shim).

use std::ffi::c_void;

use super::native::{Native, ARBOR_SO};

const PAGE: u64 = 4096;
/// lavd's and p2dq's arena (lib/alloc/common.h): 1 << 20 pages at 1 << 44
const EXTRA: u64 = 1 << 44;

type Map = unsafe extern "C" fn(*mut c_void, u32, u64) -> *mut c_void;
type Alloc = unsafe extern "C" fn(*mut c_void, *mut c_void, u32, i32, u64) -> *mut c_void;
type Free = unsafe extern "C" fn(*mut c_void, *mut c_void, u32);
type Reserve = unsafe extern "C" fn(*mut c_void, *mut c_void, u32) -> i32;

struct Arena {
    _n: Native,
    a: *mut c_void,
    alloc: Alloc,
    free: Free,
    reserve: Reserve,
    start: u64,
}

impl Arena {
    /// A fresh object with one arena of `pages` pages at `extra`.
    fn new(pages: u32, extra: u64) -> Arena {
        let n = Native::load(ARBOR_SO, "arena-test", Vec::new()).unwrap();
        let sym = |s: &str| n.global_ptr(s).unwrap() as *const c_void;
        // SAFETY: the symbols have these C signatures (shim.c)
        unsafe {
            let map: Map = std::mem::transmute(sym("sim_arena_test_map"));
            let alloc: Alloc = std::mem::transmute(sym("sim_arena_alloc_pages"));
            let free: Free = std::mem::transmute(sym("sim_arena_free_pages"));
            let reserve: Reserve = std::mem::transmute(sym("sim_arena_reserve_pages"));
            let mut key = 0u8;
            let a = map(&mut key as *mut u8 as *mut c_void, pages, extra);
            assert!(!a.is_null());
            let mut t = Arena {
                _n: n,
                a,
                alloc,
                free,
                reserve,
                start: 0,
            };
            // the first page of an empty arena is page 0
            let p = t.alloc_raw(0, 1, 0);
            assert_ne!(p, 0);
            t.start = p;
            t.free(0, 1);
            t
        }
    }
    fn alloc_raw(&self, addr: u64, cnt: u32, flags: u64) -> u64 {
        // SAFETY: a is a live arena of the loaded object
        unsafe { (self.alloc)(self.a, addr as *mut c_void, cnt, -1, flags) as u64 }
    }
    /// alloc at page `pgoff` (None: anywhere); Some(page index) or None
    fn alloc(&self, pgoff: Option<u64>, cnt: u32) -> Option<u64> {
        let addr = pgoff.map(|p| self.start + p * PAGE).unwrap_or(0);
        let p = self.alloc_raw(addr, cnt, 0);
        (p != 0).then(|| (p - self.start) / PAGE)
    }
    fn free(&self, pgoff: u64, cnt: u32) {
        // SAFETY: as above
        unsafe { (self.free)(self.a, (self.start + pgoff * PAGE) as *mut c_void, cnt) }
    }
    fn reserve(&self, pgoff: u64, cnt: u32) -> i32 {
        // SAFETY: as above
        unsafe { (self.reserve)(self.a, (self.start + pgoff * PAGE) as *mut c_void, cnt) }
    }
    fn page(&self, pgoff: u64) -> *mut u64 {
        (self.start + pgoff * PAGE) as *mut u64
    }
}

#[test]
fn arena_pages_sit_at_map_extra_low_bits_and_come_zeroed() {
    let a = Arena::new(1 << 20, EXTRA);
    // arena_alloc_pages returns clear_lo32(user_vm_start) + uaddr32: the
    // page offsets the program computes are map_extra's
    assert_eq!(a.start as u32, EXTRA as u32);
    assert_eq!(a.start % PAGE, 0);
    let p = a.alloc(None, 3).unwrap();
    assert_eq!(p, 0);
    // SAFETY: pages 0..3 are allocated
    unsafe {
        assert_eq!(*a.page(0), 0);
        *a.page(2) = 0xdead;
        assert_eq!(*a.page(2), 0xdead);
    }
    // a freed page comes back zeroed (__GFP_ZERO)
    a.free(0, 3);
    assert_eq!(a.alloc(Some(2), 1), Some(2));
    // SAFETY: page 2 is allocated again
    unsafe { assert_eq!(*a.page(2), 0) };
}

#[test]
fn arena_alloc_is_best_fit_as_range_tree_find() {
    let a = Arena::new(16, EXTRA);
    assert_eq!(a.alloc(None, 4), Some(0)); // 0-3
    assert_eq!(a.alloc(None, 1), Some(4)); // 4
    assert_eq!(a.alloc(None, 2), Some(5)); // 5-6
    assert_eq!(a.alloc(None, 1), Some(7)); // 7; free: 8-15
    a.free(0, 4);
    a.free(5, 2);
    // free ranges 0-3 (4), 5-6 (2), 8-15 (8): the smallest that fits
    // wins, not the lowest (first fit would give 0)
    assert_eq!(a.alloc(None, 2), Some(5));
    assert_eq!(a.alloc(None, 3), Some(0));
    // left: 3 (1), 8-15 (8)
    assert_eq!(a.alloc(None, 1), Some(3));
    assert_eq!(a.alloc(None, 9), None);
    assert_eq!(a.alloc(None, 8), Some(8));
    assert_eq!(a.alloc(None, 1), None);
}

#[test]
fn arena_best_fit_ties_go_to_the_range_freed_last() {
    let a = Arena::new(16, EXTRA);
    for i in 0..8 {
        assert_eq!(a.alloc(None, 2), Some(2 * i));
    }
    // two free ranges of 2 pages: 2-3 freed first, 10-11 last; the size
    // rbtree puts an equal size right of the others and __find_range ends
    // at the rightmost fit
    a.free(2, 2);
    a.free(10, 2);
    assert_eq!(a.alloc(None, 2), Some(10));
    assert_eq!(a.alloc(None, 2), Some(2));
}

#[test]
fn arena_alloc_at_an_address_and_its_refusals() {
    let a = Arena::new(16, EXTRA);
    assert_eq!(a.alloc(Some(4), 2), Some(4));
    // taken, partly taken, past the end, unaligned, flags, no pages, too many
    assert_eq!(a.alloc(Some(5), 1), None);
    assert_eq!(a.alloc(Some(3), 2), None);
    assert_eq!(a.alloc(Some(15), 2), None);
    assert_eq!(a.alloc_raw(a.start + 8, 1, 0), 0);
    assert_eq!(a.alloc_raw(0, 1, 1), 0);
    assert_eq!(a.alloc(None, 0), None);
    assert_eq!(a.alloc(None, 17), None);
    // splitting the free range around 4-5 leaves 0-3 and 6-15
    assert_eq!(a.alloc(None, 4), Some(0));
    assert_eq!(a.alloc(None, 10), Some(6));
}

#[test]
fn arena_free_clips_at_the_end_and_merges_neighbours() {
    let a = Arena::new(8, EXTRA);
    assert_eq!(a.alloc(None, 8), Some(0));
    // freeing past the end frees up to the end only
    a.free(6, 100);
    assert_eq!(a.alloc(None, 3), None);
    assert_eq!(a.alloc(None, 2), Some(6));
    // free 1, then 3, then 2: one range 1-3 again
    a.free(1, 1);
    a.free(3, 1);
    assert_eq!(a.alloc(None, 3), None);
    a.free(2, 1);
    assert_eq!(a.alloc(None, 3), Some(1));
}

#[test]
fn arena_reserved_pages_are_never_handed_out() {
    let a = Arena::new(8, EXTRA);
    assert_eq!(a.reserve(0, 2), 0);
    assert_eq!(a.alloc(None, 1), Some(2));
    // a range with an allocated page cannot be reserved; past the end: -EINVAL
    assert_eq!(a.reserve(2, 2), -libc::EBUSY);
    assert_eq!(a.reserve(7, 2), -libc::EINVAL);
    assert_eq!(a.alloc(Some(0), 1), None);
    // freeing a reserved range makes it allocatable (arena_free_pages sets it)
    a.free(0, 2);
    assert_eq!(a.alloc(Some(0), 2), Some(0));
}

#[test]
fn two_runs_get_two_arenas_with_the_same_page_offsets() {
    let a = Arena::new(1 << 20, EXTRA);
    let b = Arena::new(1 << 20, EXTRA);
    assert_ne!(a.start, b.start);
    assert_eq!(a.start as u32, b.start as u32);
    let (pa, pb) = (a.alloc(None, 1).unwrap(), b.alloc(None, 1).unwrap());
    assert_eq!(pa, pb);
    // SAFETY: both pages are allocated; the arenas are distinct memory
    unsafe {
        *a.page(pa) = 1;
        *b.page(pb) = 2;
        assert_eq!(*a.page(pa), 1);
    }
}

/// The shim's arena test program (sim/shim/tests/arena_prog.c): arena BPF C
/// written as the scx arena library writes it, compiled with the shim.
static ARENA_PROG_SO: &[u8] = include_bytes!(env!("SIM_SCHED_ARENATEST_SO"));

#[repr(C)]
struct PidArg {
    pid: i32,
}

fn prog() -> Native {
    Native::load(ARENA_PROG_SO, "arena-prog", Vec::new()).unwrap()
}

fn call(n: &mut Native, name: &str, pid: i32) -> i32 {
    // SAFETY: the programs take a struct pid_arg (arena_prog.c)
    unsafe { n.run_syscall(name, &mut PidArg { pid }).unwrap() }
}

#[test]
fn per_task_arena_data_survives_until_freed_and_comes_back_fresh() {
    let mut n = prog();
    assert_eq!(call(&mut n, "task_alloc", 10), 0);
    assert_eq!(call(&mut n, "task_alloc", 11), 1);
    // bpf_arena_alloc_pages(&arena, NULL, 1, ...): pages 0 and 1 of the
    // arena, at map_extra's low 32 bits (0)
    assert_eq!(call(&mut n, "task_pgoff", 10), 0);
    assert_eq!(call(&mut n, "task_pgoff", 11), 1);
    assert_eq!(call(&mut n, "task_run", 10), 1);
    assert_eq!(call(&mut n, "task_run", 10), 2);
    assert_eq!(call(&mut n, "task_run", 11), 1);
    // exit: the page goes back; the task's data is gone
    assert_eq!(call(&mut n, "task_free", 10), 0);
    assert_eq!(call(&mut n, "task_run", 10), -libc::ENOENT);
    // re-created, it gets the freed page back (best fit), zeroed
    assert_eq!(call(&mut n, "task_alloc", 10), 0);
    assert_eq!(call(&mut n, "task_pgoff", 10), 0);
    assert_eq!(call(&mut n, "task_run", 10), 1);
    assert_eq!(call(&mut n, "task_run", 11), 2);
}

#[test]
fn an_arena_spin_lock_taken_twice_is_an_aa_deadlock() {
    let mut n = prog();
    assert_eq!(call(&mut n, "task_alloc", 7), 0);
    // rqspinlock's AA detection: -EDEADLK, and the lock still works after
    assert_eq!(call(&mut n, "task_lock_twice", 7), -libc::EDEADLK);
    assert_eq!(call(&mut n, "task_run", 7), 1);
}

#[repr(C)]
#[derive(Default, Debug)]
struct DivArg {
    a: u64,
    b: u64,
    quot: u64,
    rem: u64,
    sa: i32,
    sb: i32,
    squot: i32,
    srem: i32,
}

/// BPF's division by zero (sched/divzero.rs): in native code compiled with
/// the shim, x / 0 is 0 and x % 0 is x, as the BPF instruction set defines
/// them, for unsigned 64-bit and signed 32-bit operands; other divisions
/// are untouched.
#[test]
fn division_by_zero_gives_bpf_results() {
    let mut n = prog();
    let mut d = DivArg {
        a: 1234,
        b: 0,
        sa: -77,
        sb: 0,
        ..Default::default()
    };
    // SAFETY: divide takes a struct div_arg (arena_prog.c)
    unsafe { n.run_syscall("divide", &mut d).unwrap() };
    assert_eq!((d.quot, d.rem, d.squot, d.srem), (0, 1234, 0, -77), "{d:?}");
    let mut d = DivArg {
        a: 1234,
        b: 10,
        sa: -77,
        sb: 10,
        ..Default::default()
    };
    // SAFETY: as above
    unsafe { n.run_syscall("divide", &mut d).unwrap() };
    assert_eq!((d.quot, d.rem, d.squot, d.srem), (123, 4, -7, -7), "{d:?}");
}

#[repr(C)]
struct MapArg {
    r: [i64; 12],
}

/// The maps scx_rusty needs, as the shim models them (arena_prog.c
/// `map_checks`): a map reached through a `void *` finds the same element
/// (sim_untyped_maps); `value_size` sizes the elements; array updates and
/// deletes return what kernel/bpf/arraymap.c's do; bpf_task_storage_delete
/// frees the entry, then -ENOENT.
#[test]
fn rustys_maps_untyped_sized_array_updates_and_storage_delete() {
    let mut n = prog();
    let mut a = MapArg { r: [0; 12] };
    // SAFETY: map_checks takes a struct map_arg (arena_prog.c)
    let r = unsafe { n.run_syscall("map_checks", &mut a).unwrap() };
    assert_eq!(r, 0);
    let e = |x: i32| -(x as i64);
    assert_eq!(
        a.r,
        [
            42,              // the void * lookup: the same element
            24,              // value_size
            e(libc::EEXIST), // BPF_NOEXIST on an array
            e(libc::EINVAL), // flags past BPF_EXIST
            e(libc::E2BIG),  // index past the end
            0,               // BPF_EXIST: copied in
            7,               // ... and read back
            e(libc::EINVAL), // array delete
            1,               // task storage created
            0,               // deleted
            0,               // gone
            e(libc::ENOENT), // deleting again
        ]
    );
}

/// The shim's cgroups (arena_prog.c `cgroup_checks`): the root, id 1,
/// level 0, is the only cgroup: bpf_cgroup_from_id finds it and nothing
/// else; bpf_cgroup_ancestor gives it at level 0, NULL past its level; a
/// css walk from it (descendants pre- and post-order) visits it alone; a
/// task joins it (p->cgroups, p->sched_task_group, scx_bpf_task_cgroup).
#[test]
fn the_root_cgroup_is_the_only_one() {
    let mut n = prog();
    // SAFETY: cgroup_checks ignores its argument
    let r = unsafe { n.run_syscall("cgroup_checks", &mut 0u64).unwrap() };
    assert_eq!(r, 0, "failed checks: {r:#b}");
}
