// crc32: the CRC-32 (IEEE 802.3, as zlib's crc32) of the payload of each record, stored
// in network byte order: crcs[r] = big-endian crc32(payload of record r).
//
// Records are 4*(W+1) bytes apart, 4-byte aligned; each holds an hdr-byte header (hdr in
// 0..3) followed by a 4*W-byte payload, so the payload is not word aligned. Each thread
// handles one record: it reads aligned words and rebuilds each payload word with
// alignbit (a funnel shift of two neighbouring words by 8*hdr bits).
//
// The reflected CRC is computed MSB-first on bit-reversed data: brev turns each payload
// word into the bit order of the non-reflected polynomial 0x04C11DB7, so each of the 32
// steps per word is shift-left-and-conditionally-xor with the sign bit as the condition;
// a final brev and complement give the standard value, and perm.b32 byte-swaps it.
//
// Arguments:
//   0 recs  buffer of R*4*(W+1) bytes
//   1 crcs  buffer of R u32
//   2 R     number of records
//   3 W     payload words per record
//   4 hdr   header bytes before each payload (0..3)
// Launch: 1-D, block (256,1,1), grid (ceil(R/256),1,1).

    uload.b128 u[16:19], u[0:1], 0      // recs, crcs
    uload.b128 u[20:23], u[0:1], 16     // R (u20), W (u22)
    uload.b32  u24, u[0:1], 32          // hdr
    waitcnt    sm=0
    umul       u25, u2, u8
    add.vu     v4, v3, u25              // r
    cmp.lt.u32.vu u26, v4, u20
    saveexec.and u27, u26
    bexecz     .Ldone
    uaddi      u28, u22, 1
    uslli      u28, u28, 2              // record stride in bytes
    mul.vu     v5, v4, u28              // offset of the record's first word
    uslli      u30, u24, 3
    mov.vu     v6, u30                  // funnel shift: 8 bits per header byte
    mov.vl     v7, 0x04C11DB7           // the polynomial, MSB-first
    movi       v8, -1                   // initial CRC register
    gload.b32  v9, v5, u[16:17], 0      // first aligned word
    umov       u31, u22
    bz         u31, .Lfinish
.Lword:
    add.vi     v5, v5, 4
    gload.b32  v10, v5, u[16:17], 0
    waitcnt    vm=0
    alignbit   v11, v10, v9, v6         // the payload word straddling the two
    mov        v9, v10
    brev       v11, v11
    xor        v8, v8, v11
    umovi      u32, 4                   // 4 x 8 unrolled steps per word
.Lbits:
    sra.vi     v12, v8, 31              // all ones when the top bit is set
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    sra.vi     v12, v8, 31
    sll.vi     v8, v8, 1
    and        v12, v12, v7
    xor        v8, v8, v12
    uaddi      u32, u32, -1
    bnz        u32, .Lbits
    uaddi      u31, u31, -1
    bnz        u31, .Lword
.Lfinish:
    brev       v8, v8
    not        v8, v8
    mov.vl     v13, 0x00010203          // byte k of the result = byte 3-k of the CRC
    perm.b32   v8, v8, v8, v13
    sll.vi     v14, v4, 2
    gstore.b32 v8, v14, u[18:19], 0
.Ldone:
    exec.set   u27
    endpgm
