/*
 * Run one case exported by `warpkit examples NAME --save-cases DIR` on a native OpenCL
 * implementation (POCL on the CPU, in bench/opencl_peers.sh): the same `.cl` source, the
 * same launches and input buffers. Prints the best kernel time over the repetitions (the
 * sum over the case's launches of END - START from OpenCL profiling events; buffers are
 * created and filled outside the timed span) and compares each checked buffer with the
 * model's output that the case holds.
 *
 *   opencl_host CASE_DIR REPO_ROOT [REPEATS]
 *
 * Output, one line: `kernel_seconds S check ok` or `kernel_seconds S check differs ...`.
 * Exit status: 0 if every check matched, 1 if one differs, 2 on a usage or OpenCL error.
 *
 * The manifest format is documented in crates/examples/src/export.rs.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STAGES 64
#define MAX_ARGS 16
#define MAX_CHECKS 16
#define NAME 128

enum kind { INT, BYTES, ZEROED, OUTPUT };

struct arg {
    char name[NAME];
    enum kind kind;
    unsigned long long value; /* INT: the value; ZEROED/OUTPUT: the length */
    char file[NAME];          /* BYTES */
    int from;                 /* OUTPUT: the stage */
    char buffer[NAME];        /* OUTPUT: that stage's buffer */
    unsigned char *bytes;
    size_t len;
};

struct stage {
    size_t grid[3], block[3];
    int nargs;
    struct arg args[MAX_ARGS];
    cl_mem mems[MAX_ARGS];
};

struct check {
    int stage;
    char buffer[NAME];
    size_t words;
    unsigned ulps;
    char file[NAME];
};

static struct stage stages[MAX_STAGES];
static int nstages;
static struct check checks[MAX_CHECKS];
static int nchecks;
static char source_path[1024], kernel_name[NAME];

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "opencl_host: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static void cl_check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "opencl_host: %s failed: OpenCL error %d\n", what, err);
        exit(2);
    }
}

static unsigned char *read_file(const char *dir, const char *name, size_t *len)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n + 1);
    if (!buf || fread(buf, 1, n, f) != (size_t)n)
        die("cannot read", path);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void parse(const char *dir)
{
    size_t len;
    char *text = (char *)read_file(dir, "case.txt", &len);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long long x;
        int s;
        struct stage *st = nstages ? &stages[nstages - 1] : NULL;
        if (sscanf(line, "source %1023s", source_path) == 1 ||
            sscanf(line, "kernel %127s", kernel_name) == 1 ||
            strncmp(line, "warpkit-case ", 13) == 0 || strncmp(line, "example ", 8) == 0)
            continue;
        if (strncmp(line, "stage ", 6) == 0) {
            if (nstages == MAX_STAGES)
                die("too many stages in", dir);
            st = &stages[nstages++];
            if (sscanf(line, "stage %d grid %zu %zu %zu block %zu %zu %zu args %d", &s,
                       &st->grid[0], &st->grid[1], &st->grid[2], &st->block[0],
                       &st->block[1], &st->block[2], &st->nargs) != 8 ||
                st->nargs > MAX_ARGS)
                die("bad stage record", line);
            st->nargs = 0;
            continue;
        }
        if (strncmp(line, "arg ", 4) == 0) {
            if (!st || st->nargs == MAX_ARGS)
                die("arg record outside a stage", line);
            struct arg *g = &st->args[st->nargs++];
            if (sscanf(line, "arg %127s int %llu", g->name, &x) == 2) {
                g->kind = INT;
                g->value = x;
            } else if (sscanf(line, "arg %127s bytes %127s", g->name, g->file) == 2) {
                g->kind = BYTES;
                g->bytes = read_file(dir, g->file, &g->len);
            } else if (sscanf(line, "arg %127s zeroed %llu", g->name, &x) == 2) {
                g->kind = ZEROED;
                g->len = x;
            } else if (sscanf(line, "arg %127s output %d %127s %llu", g->name, &g->from,
                              g->buffer, &x) == 4) {
                g->kind = OUTPUT;
                g->len = x;
            } else {
                die("bad arg record", line);
            }
            continue;
        }
        if (strncmp(line, "check ", 6) == 0) {
            if (nchecks == MAX_CHECKS)
                die("too many checks in", dir);
            struct check *k = &checks[nchecks++];
            if (sscanf(line, "check %d %127s words %zu ulps %u file %127s", &k->stage, k->buffer,
                       &k->words, &k->ulps, k->file) != 5)
                die("bad check record", line);
            continue;
        }
        die("unknown record", line);
    }
    free(text);
    if (!nstages || !source_path[0] || !kernel_name[0])
        die("incomplete manifest in", dir);
}

static int arg_index(const struct stage *st, const char *name)
{
    for (int i = 0; i < st->nargs; i++)
        if (strcmp(st->args[i].name, name) == 0)
            return i;
    return -1;
}

/* The size in bytes of a by-value parameter, from its type name. */
static size_t scalar_size(const char *type)
{
    static const struct {
        const char *name;
        size_t size;
    } types[] = {{"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"int", 4},
                 {"uint", 4}, {"float", 4}, {"long", 8},  {"ulong", 8},  {"double", 8},
                 {"size_t", 8}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i].name) == 0)
            return types[i].size;
    die("unsupported parameter type", type);
    return 0;
}

static cl_context ctx;
static cl_command_queue queue;
static cl_kernel kernel;

/* Run every stage once; returns the summed kernel time in seconds. */
static double run_case(void)
{
    double total = 0;
    cl_int err;
    for (int s = 0; s < nstages; s++) {
        struct stage *st = &stages[s];
        for (int i = 0; i < st->nargs; i++) {
            struct arg *g = &st->args[i];
            st->mems[i] = NULL;
            if (g->kind == INT) {
                char type[NAME];
                cl_check(clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type,
                                            type, NULL),
                         "clGetKernelArgInfo");
                size_t size = scalar_size(type);
                cl_check(clSetKernelArg(kernel, i, size, &g->value), "clSetKernelArg");
                continue;
            }
            size_t len = g->len ? g->len : 4;
            st->mems[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, len, NULL, &err);
            cl_check(err, "clCreateBuffer");
            if (g->kind == BYTES) {
                cl_check(clEnqueueWriteBuffer(queue, st->mems[i], CL_TRUE, 0, g->len,
                                              g->bytes, 0, NULL, NULL),
                         "clEnqueueWriteBuffer");
            } else if (g->kind == ZEROED) {
                unsigned char zero = 0;
                cl_check(clEnqueueFillBuffer(queue, st->mems[i], &zero, 1, 0, len, 0, NULL,
                                             NULL),
                         "clEnqueueFillBuffer");
            } else {
                int j = g->from < s ? arg_index(&stages[g->from], g->buffer) : -1;
                if (j < 0)
                    die("an output argument names no earlier buffer", g->buffer);
                cl_check(clEnqueueCopyBuffer(queue, stages[g->from].mems[j], st->mems[i], 0,
                                             0, g->len, 0, NULL, NULL),
                         "clEnqueueCopyBuffer");
            }
            cl_check(clSetKernelArg(kernel, i, sizeof(cl_mem), &st->mems[i]),
                     "clSetKernelArg");
        }
        cl_check(clFinish(queue), "clFinish");
        size_t global[3];
        for (int d = 0; d < 3; d++)
            global[d] = st->grid[d] * st->block[d];
        cl_event done;
        cl_check(clEnqueueNDRangeKernel(queue, kernel, 3, NULL, global, st->block, 0, NULL,
                                        &done),
                 "clEnqueueNDRangeKernel");
        cl_check(clWaitForEvents(1, &done), "clWaitForEvents");
        cl_ulong start, end;
        cl_check(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                         NULL),
                 "clGetEventProfilingInfo");
        cl_check(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL),
                 "clGetEventProfilingInfo");
        clReleaseEvent(done);
        total += (double)(end - start) * 1e-9;
    }
    return total;
}

static void release_buffers(void)
{
    for (int s = 0; s < nstages; s++)
        for (int i = 0; i < stages[s].nargs; i++)
            if (stages[s].mems[i])
                clReleaseMemObject(stages[s].mems[i]);
}

/* f32 values between a and b along the number line (as warpkit_examples::f32_ulps_apart). */
static unsigned long long ulps_apart(uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    if ((a & 0x7fffffffu) > 0x7f800000u || (b & 0x7fffffffu) > 0x7f800000u)
        return ~0ull;
    long long la = (a >> 31) ? -(long long)(a & 0x7fffffffu) - 1 : (long long)a;
    long long lb = (b >> 31) ? -(long long)(b & 0x7fffffffu) - 1 : (long long)b;
    return la > lb ? (unsigned long long)(la - lb) : (unsigned long long)(lb - la);
}

/* Compare the checked buffers of the last run with the model's; 0 if all match. A check
 * with a tolerance accepts twice it: both results lie within it of the exact value. */
static int compare(const char *dir)
{
    int differs = 0;
    printf(" check");
    for (int k = 0; k < nchecks; k++) {
        struct check *c = &checks[k];
        int j = arg_index(&stages[c->stage], c->buffer);
        if (j < 0 || !stages[c->stage].mems[j])
            die("a check names no buffer", c->buffer);
        size_t model_len;
        unsigned char *model = read_file(dir, c->file, &model_len);
        size_t n = c->words;
        if (model_len < 4 * n)
            die("the model's output is shorter than the check", c->file);
        uint32_t *got = malloc(4 * n + 4);
        cl_check(clEnqueueReadBuffer(queue, stages[c->stage].mems[j], CL_TRUE, 0, 4 * n, got, 0,
                                     NULL, NULL),
                 "clEnqueueReadBuffer");
        size_t bad = 0, first = 0;
        unsigned long long worst = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t want;
            memcpy(&want, model + 4 * i, 4);
            unsigned long long d = c->ulps ? ulps_apart(got[i], want) : (got[i] != want);
            if (d > worst)
                worst = d;
            if (d > 2ull * c->ulps) {
                if (!bad)
                    first = i;
                bad++;
            }
        }
        if (bad) {
            differs = 1;
            printf(" %s:%zu/%zu-words-differ(first-%zu", c->buffer, bad, n, first);
            if (c->ulps)
                printf(",max-%llu-ulp", worst);
            printf(")");
        } else if (c->ulps) {
            printf(" %s:ok(max-%llu-ulp)", c->buffer, worst);
        } else {
            printf(" %s:ok", c->buffer);
        }
        free(got);
        free(model);
    }
    printf("\n");
    return differs;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4)
        die("usage: opencl_host CASE_DIR REPO_ROOT [REPEATS]", NULL);
    const char *dir = argv[1];
    int repeats = argc == 4 ? atoi(argv[3]) : 5;
    if (repeats < 1)
        die("REPEATS must be at least 1", argv[3]);
    parse(dir);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", argv[2], source_path);
    size_t source_len;
    char *dirpart = strdup(path), *slash = strrchr(dirpart, '/');
    *slash = 0;
    char *source = (char *)read_file(dirpart, slash + 1, &source_len);

    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    cl_check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    cl_check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_check(err, "clCreateContext");
    queue = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_check(err, "clCreateCommandQueue");
    const char *src = source;
    cl_program program = clCreateProgramWithSource(ctx, 1, &src, &source_len, &err);
    cl_check(err, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device, "-cl-kernel-arg-info", NULL, NULL) != CL_SUCCESS) {
        char log[16384];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "%s\n", log);
        die("cannot build", path);
    }
    kernel = clCreateKernel(program, kernel_name, &err);
    cl_check(err, "clCreateKernel");

    /* A warm-up run (the first enqueue compiles the work-group function), then the best of
     * REPEATS. */
    run_case();
    release_buffers();
    double best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        double t = run_case();
        if (t < best)
            best = t;
        if (r + 1 < repeats)
            release_buffers();
    }
    printf("kernel_seconds %.9f", best);
    int differs = compare(dir);
    release_buffers();
    return differs;
}
