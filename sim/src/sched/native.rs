//! A sched_ext BPF scheduler compiled natively (sim/build.rs), loaded
//! afresh for every run: the shared object is embedded in the binary,
//! copied into an anonymous file and dlopen'ed, so each run starts from the
//! program's initial globals and several runs can live in one process.
//!
//! Its read-only globals (the BPF program's .rodata, which the real loader
//! writes before load) are written here by name, after making their pages
//! writable.

use std::ffi::{c_char, c_void, CStr, CString};

use anyhow::{bail, Result};

use super::abi::{self, CpuMask, SchedExtOps, SimHost, TaskStruct};
use crate::core::{Core, Ops};
use crate::workload::TaskId;

/// The embedded shared object of scx_arbor's BPF scheduler.
pub static ARBOR_SO: &[u8] = include_bytes!(env!("SIM_SCHED_ARBOR_SO"));

pub struct Native {
    handle: *mut c_void,
    /// The memfd the object was loaded from, open as long as the handle is:
    /// glibc's dlopen matches an already loaded object by path name, so a
    /// reused fd number (`/proc/self/fd/N`) would hand a second run the first
    /// run's copy, globals and all.
    fd: i32,
    ops: *const SchedExtOps,
    host: Box<SimHost>,
    take_calls: unsafe extern "C" fn() -> u64,
    release: unsafe extern "C" fn(*mut TaskStruct),
    timer_fire: unsafe extern "C" fn(*mut c_void) -> i32,
    /// shim.c: a task joins a cgroup (NULL: the root); returns the cgroup
    join_cgroup: unsafe extern "C" fn(*mut TaskStruct, *mut c_void) -> *mut c_void,
    /// shim.c: a cgroup below another, with its kernfs id
    cgroup_new: unsafe extern "C" fn(*mut c_void, u64) -> *mut c_void,
    /// shim.c: a cgroup's kernfs node becomes active or not
    cgroup_set_active: unsafe extern "C" fn(*mut c_void, bool),
    /// the shim's struct cgroup of each of core.cgroups (index 0, the root:
    /// null), made when first needed
    cgroups: Vec<*mut c_void>,
    /// its cgroup callbacks act on groups below the root only (scx_arbor's
    /// cgroup.bpf.h): [`Ops::cgroup_groups_only`]
    pub(crate) cgroup_groups_only: bool,
    /// counters listed once the groups are initialised (scx_arbor's
    /// cpu.max and cpu.idle counters: stats::GROUP_LIMIT_NAMES)
    pub(crate) group_counters: Vec<&'static str>,
    /// shim.c: __scx_init_task around ops.init_task (tid, disallow)
    init_task: unsafe extern "C" fn(*mut TaskStruct, *mut abi::InitTaskArgs) -> i32,
    /// shim.c: the cid tables and the tid table, before ops.init
    enable_begin: unsafe extern "C" fn(),
    nr_calls: *const u64,
    name: String,
    /// (name, per-CPU rows) of the counters: read from `stats`.
    counter_names: Vec<&'static str>,
    /// The counters are u64 globals of these names (a peer's), not `stats`.
    counter_globals: bool,
    /// The counters are a per-CPU array map (counters_from_map).
    counter_map: bool,
    /// SEC("syscall") programs the loader runs once the scheduler is
    /// attached (after ops.init), with their argument bytes.
    after_init: Vec<(String, Vec<u8>)>,
}

impl Drop for Native {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and nothing of it is used after
        unsafe {
            libc::dlclose(self.handle);
            libc::close(self.fd);
        }
    }
}

fn dlerr() -> String {
    // SAFETY: dlerror returns a thread-local string or null
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown dl error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

impl Native {
    /// Loads a fresh copy of the scheduler `so`.
    pub fn load(so: &[u8], name: &str, counter_names: Vec<&'static str>) -> Result<Native> {
        // BPF's x / 0 = 0 and x % 0 = x, for the native code (divzero.rs)
        super::divzero::install();
        // SAFETY: plain libc calls on a file we create
        let (handle, fd) = unsafe {
            let cname = CString::new("arbor-sim-sched").unwrap();
            let fd = libc::memfd_create(cname.as_ptr(), 0);
            if fd < 0 {
                bail!("memfd_create failed: {}", std::io::Error::last_os_error());
            }
            let mut off = 0;
            while off < so.len() {
                let n = libc::write(fd, so[off..].as_ptr() as *const c_void, so.len() - off);
                if n <= 0 {
                    libc::close(fd);
                    bail!(
                        "writing the scheduler object: {}",
                        std::io::Error::last_os_error()
                    );
                }
                off += n as usize;
            }
            let path = CString::new(format!("/proc/self/fd/{fd}")).unwrap();
            let h = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            if h.is_null() {
                libc::close(fd);
                bail!("loading the natively compiled scheduler: {}", dlerr());
            }
            (h, fd)
        };
        let sym = |n: &str| -> Result<*mut c_void> {
            let c = CString::new(n).unwrap();
            // SAFETY: handle is a live dlopen handle
            let p = unsafe { libc::dlsym(handle, c.as_ptr()) };
            if p.is_null() {
                bail!("the scheduler object has no symbol '{n}'");
            }
            Ok(p)
        };
        // SAFETY: the symbols have these C signatures (sim/shim/shim.c)
        unsafe {
            let get_ops: unsafe extern "C" fn() -> *const SchedExtOps =
                std::mem::transmute(sym("sim_ops")?);
            let layout: unsafe extern "C" fn(*mut u64) =
                std::mem::transmute(sym("sim_task_layout")?);
            let mut l = [0u64; 8];
            layout(l.as_mut_ptr());
            check_layout(&l)?;
            let host = Box::new(host_table());
            let attach: unsafe extern "C" fn(*mut SimHost) -> i32 =
                std::mem::transmute(sym("sim_attach")?);
            let mut native = Native {
                handle,
                fd,
                ops: get_ops(),
                host,
                take_calls: std::mem::transmute(sym("sim_take_calls")?),
                release: std::mem::transmute(sym("sim_task_release")?),
                timer_fire: std::mem::transmute(sym("sim_timer_fire")?),
                join_cgroup: std::mem::transmute(sym("sim_task_join_cgroup")?),
                cgroup_new: std::mem::transmute(sym("sim_cgroup_new")?),
                cgroup_set_active: std::mem::transmute(sym("sim_cgroup_set_active")?),
                cgroups: Vec::new(),
                cgroup_groups_only: false,
                group_counters: Vec::new(),
                init_task: std::mem::transmute::<
                    *mut c_void,
                    unsafe extern "C" fn(*mut TaskStruct, *mut abi::InitTaskArgs) -> i32,
                >(sym("sim_init_task")?),
                enable_begin: std::mem::transmute::<*mut c_void, unsafe extern "C" fn()>(sym(
                    "sim_enable_begin",
                )?),
                nr_calls: sym("sim_nr_calls")? as *const u64,
                name: name.to_string(),
                counter_names,
                counter_globals: false,
                counter_map: false,
                after_init: Vec::new(),
            };
            if attach(&mut *native.host) != 0 {
                bail!("internal: dlopen returned a scheduler copy another run is using");
            }
            Ok(native)
        }
    }

    /// Writes `bytes` at `offset` into the global `name` (rodata included).
    pub fn write_global(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<()> {
        let c = CString::new(name).unwrap();
        // SAFETY: the symbol is a global of at least offset+len bytes (the
        // names and offsets come from knobs::Rodata, which mirrors the C)
        unsafe {
            let p = libc::dlsym(self.handle, c.as_ptr()) as *mut u8;
            if p.is_null() {
                bail!("the scheduler has no global '{name}'");
            }
            let dst = p.add(offset);
            make_writable(dst, bytes.len())?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
        Ok(())
    }

    /// A peer's counters: the u64 globals `names` (its .bss statistics).
    /// The counters are a per-CPU array map the object exports through
    /// sim_counter_slot() / sim_counter_max (a peer's fields_<name>.h):
    /// u64 slots, CPU-major, summed over CPUs; `names` in index order.
    pub fn counters_from_map(&mut self, names: Vec<&'static str>) {
        self.counter_names = names;
        self.counter_map = true;
    }

    pub fn counters_from_globals(&mut self, names: Vec<&'static str>) {
        self.counter_names = names;
        self.counter_globals = true;
    }

    /// The machine's size, as the program sees it before ops.init (the
    /// loader's syscall programs run then).
    pub fn set_machine(&mut self, nr_cpus: u32, nr_nodes: u32) {
        self.host.nr_cpu_slots = nr_cpus;
        self.host.nr_nodes = nr_nodes;
    }

    /// Runs a SEC("syscall") program of the scheduler, as the loader's
    /// BPF_PROG_TEST_RUN does before attaching: `name(arg)`, its return.
    /// It may only touch maps and cpumasks (no host context is set).
    ///
    /// # Safety
    /// `name` must be a function of the object taking one pointer to `A`.
    pub unsafe fn run_syscall<A>(&mut self, name: &str, arg: &mut A) -> Result<i32> {
        let c = CString::new(name).unwrap();
        let p = libc::dlsym(self.handle, c.as_ptr());
        if p.is_null() {
            bail!("the scheduler has no program '{name}'");
        }
        let f: unsafe extern "C" fn(*mut A) -> i32 = std::mem::transmute(p);
        let r = f(arg);
        (self.take_calls)();
        Ok(r)
    }

    /// Runs a SEC("syscall") program as user space's BPF_PROG_TEST_RUN does
    /// while the scheduler is attached: from the task running on the
    /// current CPU, no rq lock held (Core::unlocked), kfuncs live.
    ///
    /// # Safety
    /// `name` must be a function of the object taking one pointer to `A`.
    pub unsafe fn run_syscall_in<A>(
        &mut self,
        core: &mut Core,
        name: &str,
        arg: &mut A,
    ) -> Result<i32> {
        let c = CString::new(name).unwrap();
        let p = libc::dlsym(self.handle, c.as_ptr());
        if p.is_null() {
            bail!("the scheduler has no program '{name}'");
        }
        let f: unsafe extern "C" fn(*mut A) -> i32 = std::mem::transmute(p);
        Ok(core.unlocked(|core| self.enter(core, |_| f(arg))))
    }

    /// Runs the SEC("syscall") program `name` with a copy of `arg` right
    /// after ops.init, as a loader's first call once attached; a non-zero
    /// return fails the init.
    pub fn run_after_init(&mut self, name: &str, arg: &[u8]) {
        self.after_init.push((name.to_string(), arg.to_vec()));
    }

    /// The address and size of the field `name` (sim_field(), sched_peer.c).
    pub fn field_ptr(&self, name: &str) -> Result<(*mut u8, usize)> {
        let Some(f) = self.global_ptr("sim_field") else {
            bail!("the scheduler object has no field table");
        };
        let c = CString::new(name).unwrap();
        let (mut p, mut size) = (std::ptr::null_mut::<c_void>(), 0u32);
        // SAFETY: sim_field(const char *, void **, u32 *) (sched_peer.c)
        unsafe {
            let f: unsafe extern "C" fn(*const c_char, *mut *mut c_void, *mut u32) -> i32 =
                std::mem::transmute(f);
            if f(c.as_ptr(), &mut p, &mut size) != 0 {
                bail!("the scheduler has no field '{name}'");
            }
        }
        Ok((p as *mut u8, size as usize))
    }

    /// Writes `bytes` at `offset` into the field `name` (an element of an
    /// array of structs: element 0's field, plus i x the element size);
    /// `offset + bytes` must lie inside `stride`, the element size.
    pub fn write_field_at(
        &mut self,
        name: &str,
        index: usize,
        stride: usize,
        offset: usize,
        bytes: &[u8],
    ) -> Result<()> {
        let (p, size) = self.field_ptr(name)?;
        if offset + bytes.len() > size {
            bail!(
                "field '{name}' has {size} bytes, the loader writes {} at {offset}",
                bytes.len()
            );
        }
        // SAFETY: element `index` of the array the field belongs to (the
        // caller's stride is the element size the object reports)
        unsafe {
            let dst = p.add(index * stride + offset);
            make_writable(dst, bytes.len())?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
        Ok(())
    }

    /// Writes `bytes` into the rodata field `name` ("struct_var.field"),
    /// found through the object's sim_field() (sim/shim/sched_peer.c); its
    /// size must be the field's.
    pub fn write_field(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let (p, size) = self.field_ptr(name)?;
        if size != bytes.len() {
            bail!(
                "field '{name}' has {size} bytes, the loader writes {}",
                bytes.len()
            );
        }
        // SAFETY: the field's address and size, from the object's sim_field()
        unsafe {
            make_writable(p, bytes.len())?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        }
        Ok(())
    }

    /// Reads a T at `offset` into the global `name`.
    pub fn read_global_at<T: Copy>(&self, name: &str, offset: usize) -> Result<T> {
        let Some(p) = self.global_ptr(name) else {
            bail!("the scheduler has no global '{name}'");
        };
        // SAFETY: the global holds a T at offset (the callers mirror the C)
        Ok(unsafe { std::ptr::read_unaligned(p.add(offset) as *const T) })
    }

    pub fn read_global<T: Copy>(&self, name: &str) -> Result<T> {
        let c = CString::new(name).unwrap();
        // SAFETY: the caller names a global of type T
        unsafe {
            let p = libc::dlsym(self.handle, c.as_ptr()) as *const T;
            if p.is_null() {
                bail!("the scheduler has no global '{name}'");
            }
            Ok(std::ptr::read_volatile(p))
        }
    }

    /// The shim's root cgroup (struct cgroup *).
    fn root_cgroup(&self) -> *mut c_void {
        self.global_ptr("sim_root_cgroup")
            .map_or(std::ptr::null_mut(), |p| p as *mut c_void)
    }

    /// The shim's struct cgroup of core.cgroups' group `i`, made with its
    /// ancestors when first asked for (null for the root: the shim's own).
    fn cgroup_ptr(&mut self, core: &Core, i: usize) -> Result<*mut c_void, String> {
        let nodes = core.cgroups.nodes();
        if i == 0 || i >= nodes.len() {
            return Ok(std::ptr::null_mut());
        }
        if self.cgroups.len() < nodes.len() {
            self.cgroups.resize(nodes.len(), std::ptr::null_mut());
        }
        if self.cgroups[i].is_null() {
            let parent = match self.cgroup_ptr(core, nodes[i].parent)? {
                p if p.is_null() => self.root_cgroup(),
                p => p,
            };
            // SAFETY: parent is the shim's root or a cgroup it made
            let c = unsafe { (self.cgroup_new)(parent, crate::core::cgroup::Cgroups::id(i)) };
            if c.is_null() {
                return Err(format!(
                    "cgroup '{}': the shim holds no more cgroups",
                    nodes[i].path
                ));
            }
            self.cgroups[i] = c;
        }
        Ok(self.cgroups[i])
    }

    /// Group i's struct cgroup, the root's for 0 (what a callback is passed).
    fn cgroup_arg(&mut self, core: &Core, i: usize) -> *mut c_void {
        match self.cgroup_ptr(core, i) {
            Ok(p) if !p.is_null() => p,
            _ => self.root_cgroup(),
        }
    }

    pub(crate) fn global_ptr(&self, name: &str) -> Option<*const u8> {
        let c = CString::new(name).ok()?;
        // SAFETY: dlsym on a live handle
        let p = unsafe { libc::dlsym(self.handle, c.as_ptr()) };
        (!p.is_null()).then_some(p as *const u8)
    }

    /// Calls into the C with the host pointing at `core`, then charges the
    /// helper calls it made.
    fn enter<R>(&mut self, core: &mut Core, f: impl FnOnce(&SchedExtOps) -> R) -> R {
        self.host.ctx = core as *mut Core as *mut c_void;
        // SAFETY: ops points into the loaded object, alive while self is
        let r = f(unsafe { &*self.ops });
        // SAFETY: take_calls is the shim's counter reset
        let calls = unsafe { (self.take_calls)() };
        core.charge_calls(calls);
        r
    }
}

/// Makes the pages holding [p, p+len) writable (they may be .rodata).
unsafe fn make_writable(p: *mut u8, len: usize) -> Result<()> {
    let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
    let start = (p as usize) & !(page - 1);
    let end = (p as usize + len + page - 1) & !(page - 1);
    if libc::mprotect(
        start as *mut c_void,
        end - start,
        libc::PROT_READ | libc::PROT_WRITE,
    ) != 0
    {
        bail!(
            "mprotect of the scheduler's rodata failed: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

fn check_layout(l: &[u64; 8]) -> Result<()> {
    use std::mem::{offset_of, size_of};
    let want = [
        size_of::<TaskStruct>() as u64,
        offset_of!(TaskStruct, cpus_ptr) as u64,
        offset_of!(TaskStruct, signal) as u64,
        offset_of!(TaskStruct, scx) as u64,
        offset_of!(TaskStruct, sim_id) as u64,
        offset_of!(TaskStruct, cpus_mask) as u64,
        offset_of!(TaskStruct, sim_storage) as u64,
        size_of::<abi::ScxEntity>() as u64,
    ];
    if *l != want {
        bail!("struct task_struct differs between the shim ({l:?}) and the simulator ({want:?})");
    }
    Ok(())
}

fn t_of(core: &mut Core, t: TaskId) -> *mut TaskStruct {
    core.task_ptr(t)
}

impl Ops for Native {
    fn name(&self) -> &str {
        &self.name
    }
    fn flags(&self) -> u64 {
        // SAFETY: ops is alive
        unsafe { (*self.ops).flags }
    }
    fn init(&mut self, core: &mut Core) -> Result<(), String> {
        self.host.nr_cpu_slots = core.nr_cpus() as u32;
        self.host.nr_nodes = core.nr_nodes() as u32;
        core.calls_ptr = Some(self.nr_calls);
        // scx_root_enable: the cid mapping is built before ops.init
        // (ext.c:7426), the tid table set up (ext.c:7379)
        let begin = self.enable_begin;
        self.enter(core, |_| unsafe { begin() });
        let r = self.enter(core, |o| o.init.map(|f| unsafe { f() }).unwrap_or(0));
        if r != 0 {
            return Err(format!("{r}"));
        }
        for (name, mut arg) in std::mem::take(&mut self.after_init) {
            let Some(p) = self.global_ptr(&name) else {
                return Err(format!("the scheduler has no program '{name}'"));
            };
            // SAFETY: the loader names a syscall program taking a pointer
            // to the struct whose bytes it gave
            let f: unsafe extern "C" fn(*mut u8) -> i32 = unsafe { std::mem::transmute(p) };
            let r = self.enter(core, |_| unsafe { f(arg.as_mut_ptr()) });
            if r != 0 {
                return Err(format!("{name} returned {r}"));
            }
        }
        Ok(())
    }
    fn init_task(&mut self, core: &mut Core, t: TaskId, fork: bool) -> Result<(), String> {
        let p = t_of(core, t);
        // the task joins its cgroup (core/cgroup.rs) first
        let cg = self.cgroup_ptr(core, core.cgroups.of_task(t))?;
        // SAFETY: p is a live task_struct, cg null or one of the shim's cgroups
        let cgroup = unsafe { (self.join_cgroup)(p, cg) };
        let mut args = abi::InitTaskArgs { fork, cgroup };
        let init = self.init_task;
        // SAFETY: p and args are live; sim_init_task calls ops.init_task
        let r = self.enter(core, |_| unsafe { init(p, &mut args) });
        if r != 0 {
            return Err(format!("error {r}"));
        }
        Ok(())
    }
    fn enable(&mut self, core: &mut Core, t: TaskId) {
        let p = t_of(core, t);
        self.enter(core, |o| o.enable.map(|f| unsafe { f(p) }));
        // __scx_enable_task (ext.c:3849-3853): ops.set_weight after
        // ops.enable, with p->scx.weight
        // SAFETY: p is a live task_struct
        let w = unsafe { (*p).scx.weight };
        self.enter(core, |o| o.set_weight.map(|f| unsafe { f(p, w) }));
    }
    fn has_dequeue(&self) -> bool {
        // SAFETY: ops is alive
        unsafe { (*self.ops).dequeue.is_some() }
    }
    fn dequeue(&mut self, core: &mut Core, t: TaskId, fl: u64) {
        let p = t_of(core, t);
        self.enter(core, |o| o.dequeue.map(|f| unsafe { f(p, fl) }));
    }
    fn has_set_cpumask(&self) -> bool {
        // SAFETY: ops is alive
        unsafe { (*self.ops).set_cpumask.is_some() }
    }
    fn set_cpumask(&mut self, core: &mut Core, t: TaskId) {
        let p = t_of(core, t);
        // SAFETY: p is a live task_struct; its cpus_ptr is its own mask
        let m = unsafe { (*p).cpus_ptr };
        self.enter(core, |o| o.set_cpumask.map(|f| unsafe { f(p, m) }));
    }
    fn has_set_weight(&self) -> bool {
        // SAFETY: ops is alive
        unsafe { (*self.ops).set_weight.is_some() }
    }
    fn set_weight(&mut self, core: &mut Core, t: TaskId, w: u32) {
        let p = t_of(core, t);
        self.enter(core, |o| o.set_weight.map(|f| unsafe { f(p, w) }));
    }
    fn exit_task(&mut self, core: &mut Core, t: TaskId) {
        let p = t_of(core, t);
        let mut args = abi::ExitTaskArgs { cancelled: false };
        self.enter(core, |o| o.exit_task.map(|f| unsafe { f(p, &mut args) }));
        // SAFETY: p is a live task_struct; its storage is no longer used
        unsafe { (self.release)(p) };
    }
    fn select_cpu(&mut self, core: &mut Core, t: TaskId, prev: usize, wf: u64) -> Option<i32> {
        let p = t_of(core, t);
        self.enter(core, |o| {
            o.select_cpu.map(|f| unsafe { f(p, prev as i32, wf) })
        })
    }
    fn enqueue(&mut self, core: &mut Core, t: TaskId, fl: u64) -> bool {
        let p = t_of(core, t);
        self.enter(core, |o| o.enqueue.map(|f| unsafe { f(p, fl) }).is_some())
    }
    fn has_enqueue(&self) -> bool {
        // SAFETY: ops is alive
        unsafe { (*self.ops).enqueue.is_some() }
    }
    fn dispatch(&mut self, core: &mut Core, cpu: usize, prev: Option<TaskId>) -> bool {
        let p = prev.map(|t| t_of(core, t)).unwrap_or(std::ptr::null_mut());
        self.enter(core, |o| {
            o.dispatch.map(|f| unsafe { f(cpu as i32, p) }).is_some()
        })
    }
    fn runnable(&mut self, core: &mut Core, t: TaskId, fl: u64) {
        let p = t_of(core, t);
        self.enter(core, |o| o.runnable.map(|f| unsafe { f(p, fl) }));
    }
    fn running(&mut self, core: &mut Core, t: TaskId) {
        let p = t_of(core, t);
        self.enter(core, |o| o.running.map(|f| unsafe { f(p) }));
    }
    fn stopping(&mut self, core: &mut Core, t: TaskId, runnable: bool) {
        let p = t_of(core, t);
        self.enter(core, |o| o.stopping.map(|f| unsafe { f(p, runnable) }));
    }
    fn quiescent(&mut self, core: &mut Core, t: TaskId, fl: u64) {
        let p = t_of(core, t);
        self.enter(core, |o| o.quiescent.map(|f| unsafe { f(p, fl) }));
    }
    fn tick(&mut self, core: &mut Core, t: TaskId) {
        let p = t_of(core, t);
        self.enter(core, |o| o.tick.map(|f| unsafe { f(p) }));
    }
    fn update_idle(&mut self, core: &mut Core, cpu: usize, idle: bool) {
        self.enter(core, |o| {
            o.update_idle.map(|f| unsafe { f(cpu as i32, idle) })
        });
    }
    fn timer(&mut self, core: &mut Core, timer: usize) {
        let Some(&ptr) = core.timer_ptrs.get(timer) else {
            return;
        };
        let fire = self.timer_fire;
        // SAFETY: ptr is the struct bpf_timer the program armed
        self.enter(core, |_| unsafe { fire(ptr as *mut c_void) });
    }
    fn exit(&mut self, core: &mut Core, reason: &str) {
        // scx_disable / scx_exit (ext.c): the kind and code of the first
        // exit, its reason from the kind (scx_exit_reason), its message;
        // a run that ends without one is the loader's unregistration
        // (bpf_link__destroy: SCX_EXIT_UNREG)
        let kind = if core.exit_kind != 0 {
            core.exit_kind
        } else if reason.is_empty() {
            abi::SCX_EXIT_UNREG
        } else {
            abi::SCX_EXIT_ERROR
        };
        let why = CString::new(abi::exit_reason(kind)).unwrap_or_default();
        let msg = CString::new(reason).unwrap_or_default();
        let mut ei = abi::ExitInfo {
            kind,
            exit_code: core.exit_code,
            reason: why.as_ptr(),
            msg: msg.as_ptr(),
        };
        self.enter(core, |o| o.exit.map(|f| unsafe { f(&mut ei) }));
    }
    fn has_cpu_preempt(&self) -> bool {
        // SAFETY: ops points into the loaded object
        let o = unsafe { &*self.ops };
        o.cpu_acquire.is_some() || o.cpu_release.is_some()
    }
    fn cpu_acquire(&mut self, core: &mut Core, cpu: usize) {
        self.enter(core, |o| {
            o.cpu_acquire
                .map(|f| unsafe { f(cpu as i32, std::ptr::null_mut()) })
        });
    }
    fn cpu_release(&mut self, core: &mut Core, cpu: usize, next: TaskId) {
        let mut args = abi::CpuReleaseArgs {
            reason: 0, // SCX_CPU_PREEMPT_RT: core/rt.rs's RT tasks
            task: t_of(core, next),
        };
        let a = &mut args as *mut abi::CpuReleaseArgs as *mut c_void;
        self.enter(core, |o| o.cpu_release.map(|f| unsafe { f(cpu as i32, a) }));
    }
    fn hotplug_ops(&self) -> (bool, bool) {
        // SAFETY: ops points into the loaded object
        let o = unsafe { &*self.ops };
        (o.cpu_online.is_some(), o.cpu_offline.is_some())
    }
    fn cpu_online(&mut self, core: &mut Core, cpu: usize) {
        self.enter(core, |o| o.cpu_online.map(|f| unsafe { f(cpu as i32) }));
    }
    fn cpu_offline(&mut self, core: &mut Core, cpu: usize) {
        self.enter(core, |o| o.cpu_offline.map(|f| unsafe { f(cpu as i32) }));
    }
    fn cgroup_ops(&self) -> (bool, bool) {
        // SAFETY: ops is alive
        let o = unsafe { &*self.ops };
        (o.cgroup_init.is_some(), o.cgroup_exit.is_some())
    }
    fn cgroup_init(&mut self, core: &mut Core) -> Result<(), String> {
        // the root task group's defaults (scx_tg_init, ext.c:4593-4599):
        // CGROUP_WEIGHT_DFL, default_bw_period_us(), RUNTIME_INF, no burst
        let mut args = abi::CgroupInitArgs {
            weight: 100,
            bw_period_us: 100_000,
            bw_quota_us: u64::MAX,
            bw_burst_us: 0,
        };
        let root = self.root_cgroup();
        let r = self.enter(core, |o| {
            o.cgroup_init
                .map(|f| unsafe { f(root, &mut args) })
                .unwrap_or(0)
        });
        if r != 0 {
            return Err(format!("{r}"));
        }
        // the groups below it, parents first (css_for_each_descendant_pre),
        // with their cpu.weight and the root's bandwidth defaults
        // (cgroup_init_one, as a group made at run time: its cpu.max and
        // cpu.max.burst as its task_group holds them)
        for i in 1..core.cgroups.nodes().len() {
            self.cgroup_init_one(core, i)?;
        }
        // cpu.idle: ext.c's cgroup_init args carry no idle flag, so the
        // idle groups are told by a cpu.idle write once all are initialised
        // (scx_group_set_idle), as if written right after the load
        for i in 1..core.cgroups.nodes().len() {
            if core.cgroups.nodes()[i].limits.idle {
                let cg = self.cgroup_ptr(core, i)?;
                // SAFETY: cg is one of the shim's cgroups
                self.enter(core, |o| o.cgroup_set_idle.map(|f| unsafe { f(cg, true) }));
            }
        }
        // the group limits' counters, listed for runs with groups only
        let more = std::mem::take(&mut self.group_counters);
        self.counter_names.extend(more);
        Ok(())
    }
    fn cgroup_exit(&mut self, core: &mut Core) {
        // children first (css_for_each_descendant_post), the root last
        for i in (1..core.cgroups.nodes().len()).rev() {
            // one removed at run time had its cgroup_exit then
            if core.cgroups.nodes()[i].removed {
                continue;
            }
            let Ok(cg) = self.cgroup_ptr(core, i) else {
                continue;
            };
            // SAFETY: cg is one of the shim's cgroups
            self.enter(core, |o| o.cgroup_exit.map(|f| unsafe { f(cg) }));
        }
        let root = self.root_cgroup();
        self.enter(core, |o| o.cgroup_exit.map(|f| unsafe { f(root) }));
    }
    fn cgroup_groups_only(&self) -> bool {
        self.cgroup_groups_only
    }
    fn cgroup_run_ops(&self) -> crate::core::ops::RunOps {
        // SAFETY: ops is alive
        let o = unsafe { &*self.ops };
        crate::core::ops::RunOps {
            prep_move: o.cgroup_prep_move.is_some(),
            move_: o.cgroup_move.is_some(),
            cancel_move: o.cgroup_cancel_move.is_some(),
            set_weight: o.cgroup_set_weight.is_some(),
            set_bandwidth: o.cgroup_set_bandwidth.is_some(),
            set_idle: o.cgroup_set_idle.is_some(),
        }
    }
    fn cgroup_attach(&mut self, core: &mut Core, t: TaskId, to: usize) {
        let p = t_of(core, t);
        let cg = self.cgroup_arg(core, to);
        // SAFETY: p is a live task_struct, cg one of the shim's cgroups
        unsafe { (self.join_cgroup)(p, cg) };
    }
    fn cgroup_set_active(&mut self, core: &mut Core, g: usize, active: bool) {
        if let Ok(cg) = self.cgroup_ptr(core, g) {
            // SAFETY: cg null or one of the shim's cgroups
            unsafe { (self.cgroup_set_active)(cg, active) };
        }
    }
    fn cgroup_prep_move(&mut self, core: &mut Core, t: TaskId, from: usize, to: usize) -> i32 {
        let p = t_of(core, t);
        let (f, c) = (self.cgroup_arg(core, from), self.cgroup_arg(core, to));
        // SAFETY: p is live, f and c the shim's cgroups
        self.enter(core, |o| {
            o.cgroup_prep_move
                .map(|op| unsafe { op(p, f, c) })
                .unwrap_or(0)
        })
    }
    fn cgroup_move(&mut self, core: &mut Core, t: TaskId, from: usize, to: usize) {
        let p = t_of(core, t);
        let (f, c) = (self.cgroup_arg(core, from), self.cgroup_arg(core, to));
        // SAFETY: p is live, f and c the shim's cgroups
        self.enter(core, |o| o.cgroup_move.map(|op| unsafe { op(p, f, c) }));
    }
    fn cgroup_cancel_move(&mut self, core: &mut Core, t: TaskId, from: usize, to: usize) {
        let p = t_of(core, t);
        let (f, c) = (self.cgroup_arg(core, from), self.cgroup_arg(core, to));
        // SAFETY: p is live, f and c the shim's cgroups
        self.enter(core, |o| {
            o.cgroup_cancel_move.map(|op| unsafe { op(p, f, c) })
        });
    }
    fn cgroup_set_weight(&mut self, core: &mut Core, g: usize, weight: u32) {
        let c = self.cgroup_arg(core, g);
        // SAFETY: c is one of the shim's cgroups
        self.enter(core, |o| {
            o.cgroup_set_weight.map(|op| unsafe { op(c, weight) })
        });
    }
    fn cgroup_set_bandwidth(
        &mut self,
        core: &mut Core,
        g: usize,
        period_us: u64,
        quota_us: u64,
        burst_us: u64,
    ) {
        let c = self.cgroup_arg(core, g);
        // SAFETY: c is one of the shim's cgroups
        self.enter(core, |o| {
            o.cgroup_set_bandwidth
                .map(|op| unsafe { op(c, period_us, quota_us, burst_us) })
        });
    }
    fn cgroup_set_idle(&mut self, core: &mut Core, g: usize, idle: bool) {
        let c = self.cgroup_arg(core, g);
        // SAFETY: c is one of the shim's cgroups
        self.enter(core, |o| o.cgroup_set_idle.map(|op| unsafe { op(c, idle) }));
    }
    fn cgroup_init_one(&mut self, core: &mut Core, g: usize) -> Result<(), String> {
        // scx_tg_online: the new task group's defaults (scx_tg_init)
        let n = &core.cgroups.nodes()[g];
        let mut args = abi::CgroupInitArgs {
            weight: n.weight,
            bw_period_us: n.period_us,
            bw_quota_us: n.limits.max.map_or(u64::MAX, |m| m.0),
            bw_burst_us: n.limits.burst,
        };
        let path = n.path.clone();
        let c = self.cgroup_ptr(core, g)?;
        // SAFETY: c is one of the shim's cgroups, args live
        let r = self.enter(core, |o| {
            o.cgroup_init
                .map(|op| unsafe { op(c, &mut args) })
                .unwrap_or(0)
        });
        if r != 0 {
            return Err(format!("{r} for {path}"));
        }
        Ok(())
    }
    fn cgroup_exit_one(&mut self, core: &mut Core, g: usize) {
        let c = self.cgroup_arg(core, g);
        // SAFETY: c is one of the shim's cgroups
        self.enter(core, |o| o.cgroup_exit.map(|op| unsafe { op(c) }));
    }
    fn counters(&self) -> Vec<(String, u64)> {
        if self.counter_map {
            let (Some(f), Ok(max)) = (
                self.global_ptr("sim_counter_slot"),
                self.read_global::<u32>("sim_counter_max"),
            ) else {
                return Vec::new();
            };
            // SAFETY: sim_counter_slot returns the map's storage slot; the
            // storage (allocated on first lookup) is u64[nr_cpu_slots][max]
            // (sim_map_lookup, scx/common.bpf.h)
            let sums = unsafe {
                let f: unsafe extern "C" fn() -> *const *const u64 = std::mem::transmute(f);
                let base = *f();
                let mut sums = vec![0u64; max as usize];
                if !base.is_null() {
                    for r in 0..self.host.nr_cpu_slots as usize {
                        for (i, s) in sums.iter_mut().enumerate() {
                            *s += std::ptr::read(base.add(r * max as usize + i));
                        }
                    }
                }
                sums
            };
            return self
                .counter_names
                .iter()
                .zip(sums)
                .map(|(n, v)| (n.to_string(), v))
                .collect();
        }
        if self.counter_globals {
            return self
                .counter_names
                .iter()
                .filter_map(|n| Some((n.to_string(), self.read_global::<u64>(n).ok()?)))
                .collect();
        }
        let Some(p) = self.global_ptr("stats") else {
            return Vec::new();
        };
        let n = self.counter_names.len();
        // a row holds every counter, those not listed (yet) included
        let stride = n + self.group_counters.len();
        let rows = self.host.nr_cpu_slots as usize;
        let mut sums = vec![0u64; n];
        // SAFETY: `stats` is u64[MAX_CPUS][ARBOR_NR_STATS] (common.bpf.h)
        unsafe {
            let base = p as *const u64;
            for r in 0..rows {
                for (i, s) in sums.iter_mut().enumerate() {
                    *s += std::ptr::read(base.add(r * stride + i));
                }
            }
        }
        let mut out: Vec<(String, u64)> = self
            .counter_names
            .iter()
            .map(|s| s.to_string())
            .zip(sums)
            .collect();
        if let Ok(gap) = self.read_global::<u64>("gap_total_ns") {
            for (k, v) in out.iter_mut() {
                if k == "idle_while_queued_ns" {
                    *v = gap;
                }
            }
        }
        out
    }
}

// ---------------------------------------------------------------------
// The host table: each entry turns the C call into a Core kfunc.
// ---------------------------------------------------------------------

unsafe fn core<'a>(ctx: *mut c_void) -> &'a mut Core {
    &mut *(ctx as *mut Core)
}

unsafe extern "C" fn h_ktime(ctx: *mut c_void) -> u64 {
    core(ctx).kf_ktime()
}
unsafe extern "C" fn h_this_cpu(ctx: *mut c_void) -> i32 {
    core(ctx).this_cpu as i32
}
unsafe extern "C" fn h_current(ctx: *mut c_void) -> *mut TaskStruct {
    let c = core(ctx);
    let cpu = c.this_cpu;
    c.current_ptr(cpu)
}
unsafe extern "C" fn h_task_cpu(ctx: *mut c_void, p: *const TaskStruct) -> i32 {
    let c = core(ctx);
    match c.task_of(p) {
        Some(t) => c.tasks[t].cpu as i32,
        None => c.this_cpu as i32, // an idle task: its own CPU
    }
}
unsafe extern "C" fn h_dsq_insert(
    ctx: *mut c_void,
    p: *mut TaskStruct,
    dsq: u64,
    slice: u64,
    vtime: u64,
    fl: u64,
    vt: bool,
) {
    let c = core(ctx);
    match c.task_of(p) {
        Some(t) => c.kf_dsq_insert(t, dsq, slice, vt.then_some(vtime), fl),
        None => c.eject("scx_bpf_dsq_insert of a task the simulator does not know".into()),
    }
}
unsafe extern "C" fn h_move_to_local(ctx: *mut c_void, dsq: u64, _fl: u64) -> bool {
    core(ctx).kf_move_to_local(dsq)
}
unsafe extern "C" fn h_nr_queued(ctx: *mut c_void, dsq: u64) -> i32 {
    core(ctx).kf_nr_queued(dsq)
}
unsafe extern "C" fn h_create_dsq(ctx: *mut c_void, dsq: u64, node: i32) -> i32 {
    core(ctx).kf_create_dsq(dsq, node)
}
unsafe extern "C" fn h_destroy_dsq(ctx: *mut c_void, dsq: u64) {
    core(ctx).kf_destroy_dsq(dsq)
}
unsafe extern "C" fn h_kick(ctx: *mut c_void, cpu: i32, fl: u64) {
    core(ctx).kf_kick_cpu(cpu, fl)
}
unsafe extern "C" fn h_test_clear(ctx: *mut c_void, cpu: i32) -> bool {
    core(ctx).kf_test_and_clear_idle(cpu)
}
unsafe extern "C" fn h_pick_idle(ctx: *mut c_void, m: *const CpuMask, fl: u64) -> i32 {
    let mask = *m;
    core(ctx).kf_pick_idle(&mask, fl)
}
unsafe extern "C" fn h_pick_any(ctx: *mut c_void, m: *const CpuMask, fl: u64) -> i32 {
    let mask = *m;
    core(ctx).kf_pick_any(&mask, fl)
}
unsafe extern "C" fn h_idle_mask(ctx: *mut c_void) -> *const CpuMask {
    core(ctx).idle_mask_ptr()
}
unsafe extern "C" fn h_smt_mask(ctx: *mut c_void) -> *const CpuMask {
    core(ctx).smt_mask_ptr()
}
unsafe extern "C" fn h_put_mask(_ctx: *mut c_void, _m: *const CpuMask) {}
unsafe extern "C" fn h_error(ctx: *mut c_void, msg: *const c_char) {
    let m = CStr::from_ptr(msg).to_string_lossy().into_owned();
    core(ctx).eject_as(abi::SCX_EXIT_ERROR_BPF, 0, format!("scx_bpf_error: {m}"));
}
/// scx_bpf_exit (ext.c scx_bpf_exit_bstr): SCX_EXIT_UNREG_BPF with `code`.
unsafe extern "C" fn h_exit_bpf(ctx: *mut c_void, code: i64, msg: *const c_char) {
    let m = CStr::from_ptr(msg).to_string_lossy().into_owned();
    core(ctx).eject_as(abi::SCX_EXIT_UNREG_BPF, code, m);
}
unsafe extern "C" fn h_iter_new(ctx: *mut c_void, dsq: u64, _fl: u64) -> u64 {
    core(ctx).kf_iter_new(dsq)
}
unsafe extern "C" fn h_iter_next(ctx: *mut c_void, h: u64) -> *mut TaskStruct {
    let c = core(ctx);
    match c.kf_iter_next(h) {
        Some(t) => c.task_ptr(t),
        None => std::ptr::null_mut(),
    }
}
unsafe extern "C" fn h_iter_destroy(ctx: *mut c_void, h: u64) {
    core(ctx).kf_iter_destroy(h)
}
unsafe extern "C" fn h_dsq_move(
    ctx: *mut c_void,
    h: u64,
    p: *mut TaskStruct,
    dsq: u64,
    fl: u64,
) -> bool {
    let c = core(ctx);
    match c.task_of(p) {
        Some(t) => c.kf_dsq_move(h, t, dsq, fl),
        None => false,
    }
}
unsafe extern "C" fn h_timer_start(ctx: *mut c_void, timer: *mut c_void, ns: u64, _fl: u64) -> i32 {
    let c = core(ctx);
    let id = c.timer_id(timer as usize);
    c.kf_timer_start(id, ns)
}

unsafe extern "C" fn h_select_cpu_and(
    ctx: *mut c_void,
    p: *mut TaskStruct,
    prev: i32,
    wf: u64,
    m: *const CpuMask,
    fl: u64,
) -> i32 {
    let c = core(ctx);
    let mask = (!m.is_null()).then(|| *m);
    match c.task_of(p) {
        Some(t) => c.kf_select_cpu_and(t, prev, wf, mask.as_ref(), fl),
        None => {
            c.eject("scx_bpf_select_cpu_* of a task the simulator does not know".into());
            -libc::EINVAL
        }
    }
}
unsafe extern "C" fn h_idle_mask_node(ctx: *mut c_void, node: i32, smt: bool) -> *const CpuMask {
    core(ctx).kf_idle_mask_node(node, smt)
}
unsafe extern "C" fn h_cpu_node(ctx: *mut c_void, cpu: i32) -> i32 {
    core(ctx).kf_cpu_node(cpu)
}
unsafe extern "C" fn h_cpu_llc_id(ctx: *mut c_void, cpu: i32) -> i32 {
    core(ctx).kf_cpu_llc_id(cpu)
}
unsafe extern "C" fn h_online_mask(ctx: *mut c_void) -> *const CpuMask {
    core(ctx).online_mask_ptr()
}
unsafe extern "C" fn h_task_running(ctx: *mut c_void, p: *const TaskStruct) -> bool {
    let c = core(ctx);
    c.task_of(p).is_some_and(|t| c.kf_task_running(t))
}
unsafe extern "C" fn h_dsq_peek(ctx: *mut c_void, dsq: u64) -> *mut TaskStruct {
    let c = core(ctx);
    match c.kf_dsq_peek(dsq) {
        Some(t) => c.task_ptr(t),
        None => std::ptr::null_mut(),
    }
}
/// scx_bpf_cpuperf_set: a frequency hint; the machine's speeds do not
/// follow it (the peers run with their defaults: bpfland asks for the
/// maximum).
unsafe extern "C" fn h_cpuperf_set(_ctx: *mut c_void, _cpu: i32, _perf: u32) {}

unsafe extern "C" fn h_task_from_pid(ctx: *mut c_void, pid: i32) -> *mut TaskStruct {
    let c = core(ctx);
    match c.kf_task_from_pid(pid) {
        Some(t) => t_of(c, t),
        None => std::ptr::null_mut(),
    }
}
unsafe extern "C" fn h_prandom(ctx: *mut c_void) -> u32 {
    core(ctx).kf_prandom()
}
unsafe extern "C" fn h_any_distribute(ctx: *mut c_void, m: *const CpuMask) -> u32 {
    core(ctx).kf_any_distribute(&*m)
}

// ---- scx_cosmos: scx_bpf_cpu_curr ----
unsafe extern "C" fn h_cpu_curr(ctx: *mut c_void, cpu: i32) -> *mut TaskStruct {
    core(ctx).kf_cpu_curr(cpu)
}
// ---- scx_cosmos: scx_bpf_pick_idle_cpu_node ----
unsafe extern "C" fn h_pick_idle_node(
    ctx: *mut c_void,
    m: *const CpuMask,
    node: i32,
    fl: u64,
) -> i32 {
    let mask = *m;
    core(ctx).kf_pick_idle_cpu_node(&mask, node, fl)
}
unsafe extern "C" fn h_clock_task(ctx: *mut c_void, cpu: u32) -> u64 {
    core(ctx).kf_clock_task(cpu)
}
unsafe extern "C" fn h_clock_pelt(ctx: *mut c_void, cpu: u32) -> u64 {
    core(ctx).kf_clock_pelt(cpu)
}
unsafe extern "C" fn h_cpuperf_cap(ctx: *mut c_void, cpu: i32) -> u32 {
    core(ctx).kf_cpuperf_cap(cpu)
}

unsafe extern "C" fn h_cpu_core_id(ctx: *mut c_void, cpu: i32) -> i32 {
    core(ctx).kf_cpu_core_id(cpu)
}
unsafe extern "C" fn h_dispatch_nr_slots(ctx: *mut c_void) -> u32 {
    core(ctx).kf_dispatch_nr_slots()
}

fn host_table() -> SimHost {
    SimHost {
        ctx: std::ptr::null_mut(),
        ktime: h_ktime,
        this_cpu: h_this_cpu,
        current: h_current,
        task_cpu: h_task_cpu,
        dsq_insert: h_dsq_insert,
        dsq_move_to_local: h_move_to_local,
        dsq_nr_queued: h_nr_queued,
        create_dsq: h_create_dsq,
        kick_cpu: h_kick,
        test_and_clear_cpu_idle: h_test_clear,
        pick_idle_cpu: h_pick_idle,
        pick_any_cpu: h_pick_any,
        get_idle_cpumask: h_idle_mask,
        get_idle_smtmask: h_smt_mask,
        put_idle_cpumask: h_put_mask,
        error: h_error,
        iter_new: h_iter_new,
        iter_next: h_iter_next,
        iter_destroy: h_iter_destroy,
        dsq_move: h_dsq_move,
        timer_start: h_timer_start,
        nr_cpu_slots: 0,
        nr_nodes: 1,
        select_cpu_and: h_select_cpu_and,
        get_idle_mask_node: h_idle_mask_node,
        host_cpu_node: h_cpu_node,
        host_cpu_llc: h_cpu_llc_id,
        online_cpumask: h_online_mask,
        task_running: h_task_running,
        dsq_peek: h_dsq_peek,
        cpuperf_set: h_cpuperf_set,
        task_from_pid: h_task_from_pid,
        prandom: h_prandom,
        any_distribute: h_any_distribute,
        cpu_curr: h_cpu_curr,
        pick_idle_cpu_node: h_pick_idle_node,
        clock_task: h_clock_task,
        clock_pelt: h_clock_pelt,
        cpuperf_cap: h_cpuperf_cap,
        exit_bpf: h_exit_bpf,
        destroy_dsq: h_destroy_dsq,
        cpu_core_id: h_cpu_core_id,
        dispatch_nr_slots: h_dispatch_nr_slots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two live loads are two copies: a run never shares the program's
    /// globals with another (the fd-number reuse bug made the second load
    /// return the first copy, and runs in parallel threads corrupted each other).
    #[test]
    fn two_loads_are_two_copies() {
        let a = Native::load(ARBOR_SO, "a", vec![]).expect("first load");
        let b = Native::load(ARBOR_SO, "b", vec![]).expect("second load");
        assert_ne!(a.handle, b.handle);
        assert_ne!(a.nr_calls, b.nr_calls);
        drop(a);
        let c = Native::load(ARBOR_SO, "c", vec![]).expect("load after a drop");
        assert_ne!(b.handle, c.handle);
    }

    /// A compiled BPF scheduler is told of RT preemption (core/rt.rs): the
    /// shim's test scheduler sim/shim/tests/preempt_prog.c implements only
    /// ops.cpu_release and ops.cpu_acquire, so SCX_OPS_HAS_CPU_PREEMPT holds;
    /// an RT task that takes CPU 0 from a sched_ext task makes one
    /// cpu_release(0, {SCX_CPU_PREEMPT_RT, the RT task}), and the CPU's return
    /// one cpu_acquire(0, NULL), as ext.c's switch_class and balance_one call
    /// them.
    #[test]
    fn a_bpf_scheduler_gets_cpu_release_and_cpu_acquire() {
        use crate::core::tests::{cfg, flat, stopped_ok, zero_cost, Act, Core, Script, MS};
        static PREEMPT_SO: &[u8] = include_bytes!(env!("SIM_SCHED_PREEMPTTEST_SO"));
        let mut n = Native::load(PREEMPT_SO, "preempt", vec![]).expect("load");
        n.set_machine(1, 1);
        let mut w = Script::new()
            .task_at("ext", 0, Some(vec![0]), &[Act::Run(10 * MS)])
            .rt_task("fifo", 50, 2 * MS, Some(vec![0]), &[Act::Run(3 * MS)]);
        let mut core = Core::new(flat(1), zero_cost(), cfg()).unwrap();
        let stop = core.run(&mut n, &mut w, |_| {});
        stopped_ok(&stop);
        let g = |name: &str| -> u64 { n.read_global(name).unwrap() };
        let g32 = |name: &str| -> i32 { n.read_global(name).unwrap() };
        assert_eq!((g("nr_release"), g("nr_acquire")), (1, 1));
        assert_eq!(g32("release_cpu"), 0);
        assert_eq!(g32("release_reason"), 0, "SCX_CPU_PREEMPT_RT");
        assert_eq!(g32("release_pid"), core.tasks[1].ts.pid, "the RT task");
        assert_eq!(g32("acquire_cpu"), 0);
        let null: bool = n.read_global("acquire_args_null").unwrap();
        assert!(null);
        assert_eq!(core.now, 13 * MS);
    }

    /// bpf_cgroup_from_id finds a group while its kernfs node is active,
    /// as cgroup_get_from_id's kernfs_find_and_get_node_by_id does: the
    /// load's groups from their ops.cgroup_init on; a group an mkdir
    /// makes only after its ops.cgroup_init (cgroup_mkdir's
    /// kernfs_activate comes after the css is online); a removed one no
    /// more, from its ops.cgroup_exit on (cgroup_destroy_locked's
    /// kernfs_remove comes first). The shim's test scheduler
    /// sim/shim/tests/cgroup_prog.c records it. Groups: / (id 1), /a (2),
    /// /b (3), /c (4, made at 1 ms); /b removed at 2 ms.
    #[test]
    fn bpf_cgroup_from_id_finds_a_group_while_its_node_is_active() {
        use crate::core::cgroup_events;
        use crate::core::tests::{cfg, flat, stopped_ok, zero_cost, Act, Config, Core, Script, MS};
        static CGROUP_SO: &[u8] = include_bytes!(env!("SIM_SCHED_CGROUPTEST_SO"));
        let mut n = Native::load(CGROUP_SO, "cgtest", vec![]).expect("load");
        n.set_machine(1, 1);
        let mut w = Script::new()
            .task("a", &[Act::Run(5 * MS)])
            .in_cgroup("/a")
            .task("b", &[Act::Run(MS)])
            .in_cgroup("/b");
        let c = Config {
            cgroup_events: cgroup_events::parse(&[
                "1ms mkdir /c; 1ms move 1 /a; 2ms rmdir /b".to_string()
            ])
            .unwrap(),
            ..cfg()
        };
        let mut core = Core::new(flat(1), zero_cost(), c).unwrap();
        let stop = core.run(&mut n, &mut w, |_| {});
        stopped_ok(&stop);
        let g = |name: &str| -> u64 { n.read_global(name).unwrap() };
        let bits = |ids: &[u32]| ids.iter().fold(0u64, |m, &i| m | 1 << i);
        assert_eq!(g("inited"), bits(&[1, 2, 3, 4]));
        assert_eq!(g("found_at_init"), bits(&[1, 2, 3]), "mkdir's init");
        // /b at its rmdir, the others at the unload
        assert_eq!(g("exited"), bits(&[1, 2, 3, 4]));
        assert_eq!(g("found_at_exit"), bits(&[1, 2, 4]), "rmdir's exit");
        // b ran last, at 5 ms
        assert_eq!(g("found_at_running"), bits(&[1, 2, 4]));
    }
}
