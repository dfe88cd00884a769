//! A generator of kernels with random control flow, shared by isel's selection tests and the
//! end-to-end differential test (tests/tests/random_control_flow.rs includes this file).

/// A kernel of `blocks` blocks with random control flow: each block updates a divergent value
/// and a uniform counter, ends the lanes whose fuel runs out at a shared exit (each lane
/// writes its result to its own slot of the output), and then jumps, branches on a divergent
/// or a uniform condition, switches, or returns; targets are mostly later blocks (some
/// earlier, making loops, some of them irreducible). The values, the counter and a divergent
/// boolean flow as block parameters, with different arguments on different edges, so loops
/// carry uniform values out through divergent exits and joins merge uniform values from
/// divergent and uniform branches. Every lane stops within 8 blocks (its fuel is 1 plus its
/// lane's index mod 8, spent one per block).
pub fn random_kernel(seed: u64, blocks: usize) -> String {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut s = String::from(
        "kernel @k(ptr<global>, i32) {\nentry(%out: ptr<global>, %n: i32):\n    %lid = local_id.x\n    \
         %zero = iconst.i32 0\n    %one = iconst.i32 1\n    %three = iconst.i32 3\n    %seven = iconst.i32 7\n    \
         %four = iconst.i64 4\n    %lid64 = zext.i64 %lid\n    %off = mul %lid64, %four\n    \
         %slot = ptradd %out, %off\n    \
         %low = and %lid, %seven\n    %fuel = add %low, %one\n    %g0 = icmp ult %lid, %seven\n    \
         jump b0(%lid, %fuel, %g0, %zero)\n",
    );
    for k in 0..blocks {
        let target = |next: &mut dyn FnMut(usize) -> usize| {
            let j = if k + 1 < blocks && next(10) < 7 { k + 1 + next(blocks - k - 1) } else { next(blocks) };
            let a = ["a1", "a2"][next(2)];
            let g = ["g", "h", "nh"][next(3)];
            let c = ["c", "c1"][next(2)];
            format!("b{j}(%{a}_{k}, %f1_{k}, %{g}_{k}, %{c}_{k})")
        };
        s += &format!(
            "b{k}(%a_{k}: i32, %f_{k}: i32, %g_{k}: i1, %c_{k}: i32):\n    %a1_{k} = add %a_{k}, %three\n    \
             %a2_{k} = xor %a1_{k}, %c_{k}\n    %c1_{k} = add %c_{k}, %seven\n    %f1_{k} = sub %f_{k}, %one\n    \
             %h_{k} = icmp ult %a1_{k}, %f_{k}\n    %nh_{k} = xor %h_{k}, %g_{k}\n    \
             %dead_{k} = icmp eq %f1_{k}, %zero\n    %r_{k} = add %a2_{k}, %c1_{k}\n    \
             brif %dead_{k}, fin(%r_{k}), t{k}\nt{k}:\n"
        );
        s += &match next(7) {
            0 => format!("    jump {}\n", target(&mut next)),
            1 | 2 => format!("    brif %g_{k}, {}, {}\n", target(&mut next), target(&mut next)),
            3 => format!(
                "    %u_{k} = icmp ult %three, %n\n    brif %u_{k}, {}, {}\n",
                target(&mut next),
                target(&mut next)
            ),
            4 => format!(
                "    %v_{k} = icmp ult %c_{k}, %n\n    brif %v_{k}, {}, {}\n",
                target(&mut next),
                target(&mut next)
            ),
            5 => format!(
                "    %s_{k} = and %a1_{k}, %three\n    switch %s_{k}, {}, [0: {}, 2: {}]\n",
                target(&mut next),
                target(&mut next),
                target(&mut next)
            ),
            _ => "    ret\n".to_string(),
        };
    }
    s + "fin(%r: i32):\n    store %slot, %r\n    ret\n}\n"
}
