/* A tiny "design under test" for the warpkit co-simulation API (docs/cosim.md).
 *
 * The design replays a kernel on its own instance of the model (standing in for RTL) and
 * reports every instruction it retires to a second instance, the golden model, through
 * wk_sim_cosim_check, as a testbench does with a simulated design. One fault can be
 * injected: the first time the design retires the instruction at FAULT_PC, bit 0 of
 * lane FAULT_LANE of its first vector register write is flipped (in what it reports and
 * in its own register file); for an instruction that writes no vector register but
 * accesses memory, the lowest bit that lane's access enables is flipped in its data (in
 * what it reports and, for a global store, in its own memory). The first mismatch is
 * reported with its PC, field, register and lane, and the run stops there.
 *
 * Usage: dut KERNEL N [FAULT_PC FAULT_LANE]
 *   KERNEL  raw code or an ELF code object of examples/vadd.s (warpkit asm -o vadd.bin)
 *   N       elements: a[i] = i, b[i] = 2i, out = a + b; grid ceil(N/64), block 64
 * Exit status: 0 when the design agrees with the model on every instruction and the
 * result is right, 1 at the first mismatch, 2 on bad input or an API error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warpkit.h"

static int fail(const char *what) {
    fprintf(stderr, "dut: %s: %s\n", what, wk_last_error());
    return 2;
}

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            unsigned char *more = realloc(buf, cap);
            if (!more) { free(buf); fclose(f); return NULL; }
            buf = more;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: dut KERNEL N [FAULT_PC FAULT_LANE]\n");
        return 2;
    }
    if (wk_abi_version() != WK_ABI_VERSION) {
        fprintf(stderr, "dut: built for warpkit.h layout %u, the library has %u\n",
                WK_ABI_VERSION, wk_abi_version());
        return 2;
    }
    size_t code_len = 0;
    unsigned char *code = read_file(argv[1], &code_len);
    if (!code) {
        fprintf(stderr, "dut: cannot read %s\n", argv[1]);
        return 2;
    }
    uint32_t n = (uint32_t)strtoul(argv[2], NULL, 0);
    int inject = argc == 5;
    uint32_t fault_pc = inject ? (uint32_t)strtoul(argv[3], NULL, 0) : 0;
    uint32_t fault_lane = inject ? (uint32_t)strtoul(argv[4], NULL, 0) % 32 : 0;

    uint32_t *a = malloc(4 * (size_t)n), *b = malloc(4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 2 * i;
    }
    wk_arg args[4] = {
        {"a", WK_ARG_BUFFER, 0, (const uint8_t *)a, 4 * (uint64_t)n},
        {"b", WK_ARG_BUFFER, 0, (const uint8_t *)b, 4 * (uint64_t)n},
        {"out", WK_ARG_ZEROED, 0, NULL, 4 * (uint64_t)n},
        {"n", WK_ARG_INT, n, NULL, 0},
    };
    wk_launch_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.grid[0] = (n + 63) / 64;
    desc.block[0] = 64;
    desc.args = args;
    desc.n_args = 4;

    wk_sim *golden = wk_sim_new(code, code_len, &desc);
    if (!golden) return fail("golden model");
    wk_sim *design = wk_sim_new(code, code_len, &desc);
    if (!design) return fail("design");

    static wk_commit c;
    wk_mismatch m;
    unsigned long commits = 0;
    int status = 0;
    for (;;) {
        int s = wk_sim_step(design, &c);
        if (s == WK_FINISHED) break;
        if (s != WK_OK) { status = fail("design step"); break; }
        if (inject && c.pc == fault_pc) {
            for (uint32_t k = 0; k < c.n_writes && k < WK_MAX_WRITES; k++) {
                wk_reg_write *w = &c.writes[k];
                if (w->kind == WK_WRITE_VREG && (w->lane_mask >> fault_lane & 1)) {
                    w->values[fault_lane] ^= 1;
                    uint32_t row[32];
                    memcpy(row, w->values, sizeof row);
                    if (wk_sim_write_vreg(design, c.warp, w->reg, row, 1u << fault_lane) != WK_OK) {
                        status = fail("inject");
                    }
                    printf("injected: pc 0x%x v%u lane %u\n", c.pc, w->reg, fault_lane);
                    inject = 0;
                    break;
                }
            }
            if (inject && c.n_mem > 0 && (c.mem[0].lane_mask >> fault_lane & 1)) {
                wk_mem_access *a = &c.mem[0];
                wk_lane_access *l = &a->lanes[fault_lane];
                /* The model reports the access's bytes where mask enables them. */
                uint32_t byte = 0;
                while (byte < 31 && !(l->mask >> byte & 1)) byte++;
                l->data[byte / 4] ^= 1u << (8 * (byte % 4));
                if (a->kind == WK_MEM_STORE && a->space == WK_SPACE_GLOBAL) {
                    uint8_t value = (uint8_t)(l->data[byte / 4] >> (8 * (byte % 4)));
                    if (wk_sim_write_memory(design, l->addr + byte, &value, 1) != WK_OK) {
                        status = fail("inject");
                    }
                }
                printf("injected: pc 0x%x memory lane %u byte %u\n", c.pc, fault_lane, byte);
                inject = 0;
            }
        }
        commits++;
        s = wk_sim_cosim_check(golden, &c, &m);
        if (s == WK_MISMATCH) {
            printf("first mismatch after %lu commits: pc 0x%x workgroup (%u,%u,%u) warp %u "
                   "field %u reg %u lane %u expected 0x%llx got 0x%llx\n%s\n",
                   commits, m.pc, m.workgroup[0], m.workgroup[1], m.workgroup[2], m.warp,
                   m.field, m.reg, m.lane, (unsigned long long)m.expected,
                   (unsigned long long)m.got, m.message);
            status = 1;
            break;
        }
        if (s != WK_OK) { status = fail("cosim check"); break; }
    }
    if (status == 0) {
        /* The design's result, read from its memory. */
        uint64_t out = 0;
        uint32_t *got = malloc(4 * (size_t)n);
        if (wk_sim_buffer_address(design, "out", &out) != WK_OK ||
            wk_sim_read_memory(design, out, (uint8_t *)got, 4 * (size_t)n) != WK_OK) {
            status = fail("read out");
        } else {
            for (uint32_t i = 0; i < n; i++) {
                if (got[i] != 3 * i) {
                    printf("wrong result: out[%u] = %u\n", i, got[i]);
                    status = 1;
                    break;
                }
            }
        }
        free(got);
        if (status == 0) printf("design and model agree on all %lu commits\n", commits);
    }
    wk_sim_free(design);
    wk_sim_free(golden);
    free(a);
    free(b);
    free(code);
    return status;
}
