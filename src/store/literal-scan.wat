;; grep's literal scan (grep-prefilter.ts): where a block of bytes holds a literal, 64 places at a
;; time, exactly or with ASCII letters in either case. `node scripts/make-literal-scan.mjs`
;; compiles this file into literal-scan-wasm.ts; a test checks the two agree. The caller grows the
;; memory and puts the block and the literals in it.
(module
  (memory (export "memory") 1)

  ;; What a byte of the block is ORed with before it is compared with the literal's byte `lit`:
  ;; 0x20 when `fold` is 1 and `lit` is a lowercase ASCII letter (then both cases of it compare
  ;; equal, and no other byte does), else 0.
  (func $foldFor (param $lit i32) (param $fold i32) (result i32)
    (select (i32.const 0x20) (i32.const 0)
      (i32.and (local.get $fold) (i32.lt_u (i32.sub (local.get $lit) (i32.const 0x61)) (i32.const 26)))))

  ;; The first p in [p, end - len] where bytes [p, p + len) are those at [lit, lit + len), else -1;
  ;; with `fold` 1, the literal is in lowercase and an ASCII letter matches it in either case.
  ;; `len` is at least 1. Three of the literal's bytes (at offsets a, b and c in it) are compared
  ;; first, 16 places to a SIMD compare: a block of text holds all three at once far more rarely
  ;; than any one (the caller picks rare bytes, and two at the literal's ends). Each place that
  ;; holds them is compared whole. No byte outside [p, end) or the literal is read.
  (func (export "find")
    (param $p i32) (param $end i32) (param $lit i32) (param $len i32)
    (param $a i32) (param $b i32) (param $c i32) (param $fold i32)
    (result i32)
    (local $byteA i32) (local $byteB i32) (local $byteC i32)
    (local $foldA i32) (local $foldB i32) (local $foldC i32)
    (local $allA v128) (local $allB v128) (local $allC v128)
    (local $orA v128) (local $orB v128) (local $orC v128)
    (local $pA i32) (local $pB i32) (local $pC i32) (local $stop i32) (local $j i32) (local $litByte i32)
    (if (i32.gt_u (i32.add (local.get $p) (local.get $len)) (local.get $end))
      (then (return (i32.const -1))))
    (local.set $byteA (i32.load8_u (i32.add (local.get $lit) (local.get $a))))
    (local.set $byteB (i32.load8_u (i32.add (local.get $lit) (local.get $b))))
    (local.set $byteC (i32.load8_u (i32.add (local.get $lit) (local.get $c))))
    (local.set $foldA (call $foldFor (local.get $byteA) (local.get $fold)))
    (local.set $foldB (call $foldFor (local.get $byteB) (local.get $fold)))
    (local.set $foldC (call $foldFor (local.get $byteC) (local.get $fold)))
    (local.set $allA (i8x16.splat (local.get $byteA)))
    (local.set $allB (i8x16.splat (local.get $byteB)))
    (local.set $allC (i8x16.splat (local.get $byteC)))
    (local.set $orA (i8x16.splat (local.get $foldA)))
    (local.set $orB (i8x16.splat (local.get $foldB)))
    (local.set $orC (i8x16.splat (local.get $foldC)))
    (loop $places
      ;; 64 places at a time, while the literal would end inside the block at each of them.
      (block $someHold
        (loop $sixtyFour
          (br_if $someHold
            (i32.gt_u (i32.add (i32.add (local.get $p) (i32.const 64)) (local.get $len)) (local.get $end)))
          (local.set $pA (i32.add (local.get $p) (local.get $a)))
          (local.set $pB (i32.add (local.get $p) (local.get $b)))
          (local.set $pC (i32.add (local.get $p) (local.get $c)))
          (br_if $someHold
            (v128.any_true
              (v128.or
                (v128.or
                  (v128.and
                    (v128.and
                      (i8x16.eq (v128.or (v128.load (local.get $pA)) (local.get $orA)) (local.get $allA))
                      (i8x16.eq (v128.or (v128.load (local.get $pB)) (local.get $orB)) (local.get $allB)))
                    (i8x16.eq (v128.or (v128.load (local.get $pC)) (local.get $orC)) (local.get $allC)))
                  (v128.and
                    (v128.and
                      (i8x16.eq (v128.or (v128.load offset=16 (local.get $pA)) (local.get $orA)) (local.get $allA))
                      (i8x16.eq (v128.or (v128.load offset=16 (local.get $pB)) (local.get $orB)) (local.get $allB)))
                    (i8x16.eq (v128.or (v128.load offset=16 (local.get $pC)) (local.get $orC)) (local.get $allC))))
                (v128.or
                  (v128.and
                    (v128.and
                      (i8x16.eq (v128.or (v128.load offset=32 (local.get $pA)) (local.get $orA)) (local.get $allA))
                      (i8x16.eq (v128.or (v128.load offset=32 (local.get $pB)) (local.get $orB)) (local.get $allB)))
                    (i8x16.eq (v128.or (v128.load offset=32 (local.get $pC)) (local.get $orC)) (local.get $allC)))
                  (v128.and
                    (v128.and
                      (i8x16.eq (v128.or (v128.load offset=48 (local.get $pA)) (local.get $orA)) (local.get $allA))
                      (i8x16.eq (v128.or (v128.load offset=48 (local.get $pB)) (local.get $orB)) (local.get $allB)))
                    (i8x16.eq (v128.or (v128.load offset=48 (local.get $pC)) (local.get $orC)) (local.get $allC)))))))
          (local.set $p (i32.add (local.get $p) (i32.const 64)))
          (br $sixtyFour)))
      ;; One place at a time: the next 64 (some hold the three bytes), or the block's last ones.
      (local.set $stop (i32.add (local.get $p) (i32.const 64)))
      (loop $each
        (if (i32.gt_u (i32.add (local.get $p) (local.get $len)) (local.get $end))
          (then (return (i32.const -1))))
        (if (i32.ge_u (local.get $p) (local.get $stop))
          (then (br $places)))
        (block $notHere
          (br_if $notHere
            (i32.ne (i32.or (i32.load8_u (i32.add (local.get $p) (local.get $a))) (local.get $foldA)) (local.get $byteA)))
          (br_if $notHere
            (i32.ne (i32.or (i32.load8_u (i32.add (local.get $p) (local.get $b))) (local.get $foldB)) (local.get $byteB)))
          (br_if $notHere
            (i32.ne (i32.or (i32.load8_u (i32.add (local.get $p) (local.get $c))) (local.get $foldC)) (local.get $byteC)))
          (local.set $j (i32.const 0))
          (loop $compare
            (if (i32.ge_u (local.get $j) (local.get $len))
              (then (return (local.get $p))))
            (local.set $litByte (i32.load8_u (i32.add (local.get $lit) (local.get $j))))
            (br_if $notHere
              (i32.ne
                (i32.or
                  (i32.load8_u (i32.add (local.get $p) (local.get $j)))
                  (call $foldFor (local.get $litByte) (local.get $fold)))
                (local.get $litByte)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $compare)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $each)))
    (i32.const -1)))
