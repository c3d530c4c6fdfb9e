//! BPF's division by zero, for the natively compiled schedulers.
//!
//! In BPF a division by zero is defined, not a fault: `dst / 0` is 0 and
//! `dst % 0` leaves dst (the BPF instruction set, "Arithmetic
//! instructions"; the verifier emits these for BPF_DIV / BPF_MOD with a
//! zero source, kernel/bpf/verifier.c do_misc_fixups). A scheduler may
//! rely on it: scx_p2dq's load_balance_timer computes
//! `llc_lb_offset % (nr_llcs - 1)`, a modulo by zero on a one-LLC machine.
//! Natively x86-64's div / idiv trap (#DE, SIGFPE). This handler gives the
//! trapping instruction the BPF result: quotient 0, remainder = the
//! dividend, and resumes after it. It acts only on a `div` / `idiv` of 16,
//! 32 or 64 bits whose divisor is zero (a register operand is checked; a
//! memory operand is taken to be zero unless the dividend is the signed
//! minimum, where MIN / -1 would also trap: that, and anything else, gets
//! the default action, a crash, never an invented value).
//! Elsewhere (aarch64) integer division by zero does not trap and already
//! gives 0 (and so `a % 0` = a): nothing to do.

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod imp {
    use std::sync::Once;

    /// x86 register number (0 RAX .. 15 R15) -> index in mcontext gregs.
    const GREG: [libc::c_int; 16] = [
        libc::REG_RAX,
        libc::REG_RCX,
        libc::REG_RDX,
        libc::REG_RBX,
        libc::REG_RSP,
        libc::REG_RBP,
        libc::REG_RSI,
        libc::REG_RDI,
        libc::REG_R8,
        libc::REG_R9,
        libc::REG_R10,
        libc::REG_R11,
        libc::REG_R12,
        libc::REG_R13,
        libc::REG_R14,
        libc::REG_R15,
    ];

    /// The trapping instruction at `ip`, if it is div / idiv r/m16/32/64:
    /// (length, width in bits, signed, Some(divisor register) or None for
    /// a memory operand).
    ///
    /// # Safety
    /// `ip` must point at the faulting instruction (readable code).
    pub(super) unsafe fn decode(ip: *const u8) -> Option<(usize, u32, bool, Option<usize>)> {
        let mut i = 0usize;
        let mut width = 32;
        let mut rex = 0u8;
        loop {
            match *ip.add(i) {
                0x66 => width = 16,
                0x67 | 0x2e | 0x3e | 0x26 | 0x36 | 0x64 | 0x65 => {}
                _ => break,
            }
            i += 1;
        }
        let b = *ip.add(i);
        if (0x40..=0x4f).contains(&b) {
            rex = b;
            i += 1;
        }
        if rex & 0x08 != 0 {
            width = 64;
        }
        if *ip.add(i) != 0xf7 {
            return None;
        }
        i += 1;
        let modrm = *ip.add(i);
        i += 1;
        let (md, reg, rm) = (modrm >> 6, (modrm >> 3) & 7, modrm & 7);
        let signed = match reg {
            6 => false,
            7 => true,
            _ => return None,
        };
        if md == 3 {
            let r = (rm | ((rex & 1) << 3)) as usize;
            return Some((i, width, signed, Some(r)));
        }
        let mut base = rm;
        if rm == 4 {
            base = *ip.add(i) & 7;
            i += 1;
        }
        i += match md {
            1 => 1,
            2 => 4,
            _ if rm == 5 || base == 5 => 4,
            _ => 0,
        };
        Some((i, width, signed, None))
    }

    unsafe extern "C" fn on_fpe(
        sig: libc::c_int,
        info: *mut libc::siginfo_t,
        ctx: *mut libc::c_void,
    ) {
        let uc = &mut *(ctx as *mut libc::ucontext_t);
        let g = &mut uc.uc_mcontext.gregs;
        let ip = g[libc::REG_RIP as usize] as *const u8;
        // FPE_INTDIV (asm-generic/siginfo.h): integer divide by zero
        if (*info).si_code == 1 {
            if let Some((len, width, signed, reg)) = decode(ip) {
                let mask = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                let rax = g[libc::REG_RAX as usize] as u64 & mask;
                let zero = match reg {
                    Some(r) => g[GREG[r] as usize] as u64 & mask == 0,
                    // MIN / -1 traps too: only a dividend other than MIN
                    // proves a zero divisor
                    None => !signed || rax != 1u64 << (width - 1),
                };
                if zero {
                    // BPF: quotient 0, remainder = the dividend
                    let keep = |old: i64, v: u64| -> i64 {
                        if width == 16 {
                            ((old as u64 & !0xffff) | v) as i64
                        } else {
                            v as i64
                        }
                    };
                    g[libc::REG_RDX as usize] = keep(g[libc::REG_RDX as usize], rax);
                    g[libc::REG_RAX as usize] = keep(g[libc::REG_RAX as usize], 0);
                    g[libc::REG_RIP as usize] += len as i64;
                    return;
                }
            }
        }
        // not a BPF division by zero: the default action (a crash)
        libc::signal(sig, libc::SIG_DFL);
    }

    static INSTALL: Once = Once::new();

    /// Installs the handler, once per process.
    pub fn install() {
        INSTALL.call_once(|| {
            // SAFETY: a plain sigaction with an async-signal-safe handler
            // that only edits the interrupted context
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_fpe as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(libc::SIGFPE, &sa, std::ptr::null_mut());
            }
        });
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod imp {
    pub fn install() {}
}

pub use imp::install;

#[cfg(all(test, target_arch = "x86_64", target_os = "linux"))]
mod tests {
    use super::imp::decode;

    #[test]
    fn decodes_div_and_idiv_forms() {
        // div ecx; div rcx; idiv r9d; div dword [rsp+8]; idiv qword [rip+x]
        let cases: [(&[u8], usize, u32, bool, Option<usize>); 5] = [
            (&[0xf7, 0xf1], 2, 32, false, Some(1)),
            (&[0x48, 0xf7, 0xf1], 3, 64, false, Some(1)),
            (&[0x41, 0xf7, 0xf9], 3, 32, true, Some(9)),
            (&[0xf7, 0x74, 0x24, 0x08], 4, 32, false, None),
            (&[0x48, 0xf7, 0x3d, 0, 0, 0, 0], 7, 64, true, None),
        ];
        for (code, len, w, s, r) in cases {
            // SAFETY: a readable byte slice padded past the instruction
            let mut buf = code.to_vec();
            buf.resize(16, 0x90);
            assert_eq!(
                unsafe { decode(buf.as_ptr()) },
                Some((len, w, s, r)),
                "{code:x?}"
            );
        }
        let mut mul = vec![0xf7, 0xe1]; // mul ecx: not a division
        mul.resize(16, 0x90);
        assert_eq!(unsafe { decode(mul.as_ptr()) }, None);
    }
}
