// t2c emu runtime: runs CUDA kernels on the CPU.
//
// Blocks run one after another (or on T2C_EMU_BLOCK_THREADS OS threads, one block each at
// a time); the threads of a block run as fibers on one OS thread.  __syncthreads() and the
// warp operations suspend the calling fiber; the scheduler resumes a group when all its
// members have arrived, and reports a divergent barrier when they never can.  T2C_EMU_SEED
// (not 0) shuffles block order and the order of threads after every barrier and warp
// operation, so that order-dependent results differ between seeds.  Kernels the rewriter proved free of
// barriers run their threads as a plain loop.  A cooperative launch holds all its blocks at
// once on the launching OS thread, so that grid.sync() can wait for every one of them.
//
// Findings go to stderr as `t2c-emu: <kind>: <message> at <file>:<line>` and end the
// process with the exit codes in device.h.  This file is compiled once per flag set and
// linked into every emu build; it must stay free of anything a user program could clash
// with outside namespace t2c_emu and the CUDA API names.
#define T2C_EMU_RUNTIME 1
#include "../t2c_emu.h"

#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) && !defined(T2C_ASAN)
#define T2C_ASAN 1
#endif
#ifdef T2C_ASAN             // set by build_emu: this file uninstrumented in an AddressSanitizer program
#include <sanitizer/common_interface_defs.h>
#endif
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

// Race checking (T2C_TSAN, set by build_emu for sanitize="thread"): the program is built
// with ThreadSanitizer but this file is not, so the runtime's own bookkeeping is
// invisible to it.  Every CUDA thread is a TSan fiber; switches do not synchronise;
// only barriers, warp operations, kernel start and end do (release before waiting,
// acquire after, one token per barrier generation), so two CUDA threads touching the
// same memory between barriers without atomics is reported as a data race at its line.
#ifdef T2C_TSAN
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
}
#define T2C_TSAN_DO(x) x
#else
#define T2C_TSAN_DO(x)
#endif

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace t2c_emu {

// ---------------------------------------------------------------- settings & findings

static long env_long(const char* name, long fallback) {
    const char* v = getenv(name);
    return v && *v ? strtol(v, nullptr, 10) : fallback;
}
static const unsigned long long g_seed = (unsigned long long)env_long("T2C_EMU_SEED", 0);
static const int g_block_threads = (int)std::max(1L, env_long("T2C_EMU_BLOCK_THREADS", 1));
#ifdef T2C_ASAN
static const size_t g_stack_bytes = (size_t)env_long("T2C_EMU_STACK_KIB", 256) * 1024;
#else
static const size_t g_stack_bytes = (size_t)env_long("T2C_EMU_STACK_KIB", 64) * 1024;
#endif
static const unsigned char kPoison = 0xff;   // NaN for floats and doubles, -1 for integers

void finding(int code, const char* kind, const char* file, int line, const char* fmt, ...) {
    static std::atomic<int> once{0};
    if (once.exchange(1)) { for (;;) pause(); }   // another thread is already reporting
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "t2c-emu: %s: %s at %s:%d\n", kind, msg, file ? file : "?", line);
    fflush(stderr);
    _exit(code);
}

static void note(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("t2c-emu: note: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool same_file(const char* a, const char* b) { return a == b || (a && b && strcmp(a, b) == 0); }

// splitmix64: small, seedable, and the same on every platform.
struct Rng {
    unsigned long long s;
    explicit Rng(unsigned long long seed) : s(seed) {}
    unsigned long long next() {
        unsigned long long z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    template <class T> void shuffle(std::vector<T>& v) {
        for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[next() % i]);
    }
};

// ---------------------------------------------------------------- fibers

struct Fiber {
    char* lo = nullptr;      // lowest usable stack address (a guard page lies below)
    size_t size = 0;
#if defined(__x86_64__)
    void* sp = nullptr;
#else
    ucontext_t uc;
#endif
};

struct SchedulerStack {      // where a fiber returns to
#if defined(__x86_64__)
    void* sp = nullptr;
#else
    ucontext_t uc;
#endif
    const void* lo = nullptr;   // for AddressSanitizer: the scheduler's own stack bounds
    size_t size = 0;
};

#if defined(__x86_64__)
// Saves the callee-saved registers on the current stack, stores the stack pointer in
// *save, and resumes the context whose stack pointer is next (~10 ns, no system call).
extern "C" void t2c_emu_switch(void** save, void* next);
extern "C" void t2c_emu_fiber_start();
asm(R"(
    .text
    .globl t2c_emu_switch
    .type t2c_emu_switch, @function
t2c_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size t2c_emu_switch, .-t2c_emu_switch
    .globl t2c_emu_fiber_start
    .type t2c_emu_fiber_start, @function
t2c_emu_fiber_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size t2c_emu_fiber_start, .-t2c_emu_fiber_start
)");
#endif

static void fiber_main(Fiber* f);

static Fiber* new_fiber() {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (g_stack_bytes + page - 1) / page * page;
    char* mem = (char*)mmap(nullptr, size + page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED)
        finding(kExitInternal, "internal", __FILE__, __LINE__, "cannot map a %zu-byte fiber stack", size);
    mprotect(mem, page, PROT_NONE);   // a stack overflow faults instead of corrupting a neighbour
    Fiber* f = new Fiber;
    f->lo = mem + page;
    f->size = size;
#if defined(__x86_64__)
    uintptr_t top = ((uintptr_t)(f->lo + size)) & ~(uintptr_t)15;
    void** sp = (void**)(top - 72);   // after 6 pops and ret, rsp is 16-byte aligned
    sp[0] = nullptr; sp[1] = nullptr;                 // r15, r14
    sp[2] = (void*)&fiber_main; sp[3] = (void*)f;     // r13: function, r12: its argument
    sp[4] = nullptr; sp[5] = nullptr;                 // rbx, rbp
    sp[6] = (void*)&t2c_emu_fiber_start;              // return address of the first switch
    sp[7] = nullptr; sp[8] = nullptr;
    f->sp = sp;
#else
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = f->lo;
    f->uc.uc_stack.ss_size = size;
    f->uc.uc_link = nullptr;
    makecontext(&f->uc, (void (*)())fiber_main, 1, f);
#endif
    return f;
}

static void delete_fiber(Fiber* f) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap(f->lo - page, f->size + page);
    delete f;
}

static inline void enter_fiber(SchedulerStack* s, Fiber* f) {
#ifdef T2C_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, f->lo, f->size);
#endif
#if defined(__x86_64__)
    t2c_emu_switch(&s->sp, f->sp);
#else
    swapcontext(&s->uc, &f->uc);
#endif
#ifdef T2C_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

static inline void leave_fiber(Fiber* f, SchedulerStack* s) {
#ifdef T2C_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, s->lo, s->size);
#endif
#if defined(__x86_64__)
    t2c_emu_switch(&f->sp, s->sp);
#else
    swapcontext(&f->uc, &s->uc);
#endif
#ifdef T2C_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

// ---------------------------------------------------------------- blocks and their threads

enum State : unsigned char { kReady, kRunning, kAtBarrier, kAtWarp, kAtGrid, kDone };

// An asynchronous copy (cuda_pipeline.h) is done when its thread waits for its batch, the latest
// moment a GPU may do it: reading the destination before the wait sees the old contents.
struct AsyncCopy {
    void* dst;
    const void* src;
    size_t size, zfill;
    unsigned batch;          // the commits before it
};

struct CudaThread {
    uint3 idx;
    unsigned linear;
    State state;
    Fiber* fiber;
    const char* file;        // where it waits
    int line;
    const char* what;
    unsigned mask;           // warp operations: the lanes named
    int op, pred;            // __syncthreads_count/and/or
    void* tsan;              // its ThreadSanitizer fiber (race checking only)
    std::vector<AsyncCopy> copies;   // __pipeline_memcpy_async copies not yet waited for
    unsigned commits;                // __pipeline_commit calls so far
};

struct Warp {
    unsigned existing = 0;   // lanes that exist in this block
    unsigned arrived = 0;
    unsigned exited = 0;
    unsigned gen = 0;
    unsigned members[2] = {0, 0};
    const char* what = nullptr;
    const char* file = nullptr;
    int line = 0;
    uint64_t slots[2][32];
    char tokens[2];          // race checking: one synchronisation address per generation parity
};

struct SharedVar { const void* key; void* ptr; size_t size; };

// One per OS thread that runs blocks: its fibers (kept across blocks and launches) and
// the state of the block it is running.
struct Worker {
    std::vector<Fiber*> fibers;
    SchedulerStack sched;
    CudaThread* cur = nullptr;             // null in plain mode and outside kernels
    const LaunchSite* site = nullptr;      // non-null while a kernel runs
    ThreadBody body = nullptr;
    void* ctx = nullptr;
    std::vector<CudaThread> threads;
    std::vector<Warp> warps;
    std::vector<unsigned> ready;
    size_t head = 0;
    unsigned n = 0, done = 0, at_barrier = 0, at_grid = 0;
    uint3 block{0, 0, 0};                  // its blockIdx (a cooperative launch switches between blocks)
    const char* bar_file = nullptr;
    int bar_line = 0, bar_op = 0, bar_acc = 0, bar_result = 0;
    bool bar_mixed = false;
    unsigned bar_phase = 0;
    char bar_tokens[2], start_token, end_token;   // race checking: synchronisation addresses
    void* sched_tsan = nullptr;
    std::vector<SharedVar> shared;
    size_t static_shared_bytes = 0;
    void* dyn = nullptr;
    ~Worker() {
        for (Fiber* f : fibers) delete_fiber(f);
    }
};
static thread_local std::unique_ptr<Worker> tl_worker;
static __thread Worker* tw;

// The grid barrier of the cooperative launch running on this OS thread (null in any other
// launch): grid.sync() generations completed, and race checking's synchronisation addresses.
struct GridBarrier {
    unsigned long long generation = 0;
    char tokens[2];
};
static __thread GridBarrier* tg_grid;

static Worker* worker() {
    if (!tw) { tl_worker.reset(new Worker); tw = tl_worker.get(); }
    return tw;
}

static uint3 thread_index(unsigned linear, dim3 b) {
    return uint3{linear % b.x, (linear / b.x) % b.y, linear / (b.x * b.y)};
}

static void fiber_main(Fiber* f) {
    Worker* w = tw;
#ifdef T2C_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &w->sched.lo, &w->sched.size);
#endif
    for (;;) {
        T2C_TSAN_DO(__tsan_acquire(&w->start_token));
        w->body(w->ctx);
        pipeline_wait_prior(0);      // a thread's copies still pending when it exits land anyway
        T2C_TSAN_DO(__tsan_release(&w->end_token));
        w->cur->state = kDone;
        T2C_TSAN_DO(__tsan_switch_to_fiber(w->sched_tsan, 1));
        leave_fiber(f, &w->sched);
    }
}

static void release(Worker* w, unsigned i) {
    if (w->head == w->ready.size()) { w->ready.clear(); w->head = 0; }
    w->threads[i].state = kReady;
    w->ready.push_back(i);
}

static void fmt_idx(char* buf, size_t n, uint3 v) { snprintf(buf, n, "(%u,%u,%u)", v.x, v.y, v.z); }

[[noreturn]] static void divergent(Worker* w, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void divergent(Worker* w, const char* file, int line, const char* fmt, ...) {
    char msg[600], b[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fmt_idx(b, sizeof b, blockIdx);
    finding(kExitDivergent, "divergent-barrier", file, line, "%s in block %s of kernel %s", msg, b,
            w->site->kernel);
}

[[noreturn]] static void mixed_barriers(Worker* w);

static const CudaThread* first_in(const Worker* w, State s) {
    for (const CudaThread& t : w->threads)
        if (t.state == s) return &t;
    return nullptr;
}

// The scheduler's bookkeeping after thread t gave control back.
static void after_switch(Worker* w, CudaThread* t, Rng& rng) {
    char a[48], b[48];
    if (t->state == kDone) {
        ++w->done;
        Warp& wp = w->warps[t->linear / 32];
        unsigned bit = 1u << (t->linear % 32);
        wp.exited |= bit;
        if (w->at_barrier) fmt_idx(a, sizeof a, t->idx);
        if (w->at_barrier)
            divergent(w, w->bar_file, w->bar_line,
                      "__syncthreads() waited for by %u threads, but thread %s exited without reaching it",
                      w->at_barrier, a);
        if (w->at_grid) {
            const CudaThread* g = first_in(w, kAtGrid);
            fmt_idx(a, sizeof a, t->idx);
            divergent(w, g->file, g->line,
                      "grid.sync() waited for by %u threads of this block, but thread %s exited without reaching it "
                      "(every thread of the grid must reach it)", w->at_grid, a);
        }
        for (unsigned l = 0; l < 32 && wp.arrived; ++l) {   // lanes waiting for this one at a warp operation
            const CudaThread& o = w->threads[(t->linear / 32) * 32 + l];
            if (((wp.arrived >> l) & 1u) && o.state == kAtWarp && (o.mask & bit)) {
                fmt_idx(a, sizeof a, t->idx);
                fmt_idx(b, sizeof b, o.idx);
                divergent(w, o.file, o.line, "%s by thread %s names lane %u (thread %s), which exited",
                          o.what, b, t->linear % 32, a);
            }
        }
        return;
    }
    if (t->state == kAtGrid) {
        fmt_idx(a, sizeof a, t->idx);
        if (w->done) {
            fmt_idx(b, sizeof b, first_in(w, kDone)->idx);
            divergent(w, t->file, t->line, "grid.sync() reached by thread %s, but thread %s of this block has exited "
                      "(every thread of the grid must reach it)", a, b);
        }
        if (w->at_barrier)
            divergent(w, t->file, t->line, "grid.sync() reached by thread %s while other threads of this block wait "
                      "at the __syncthreads() at %s:%d", a, w->bar_file, w->bar_line);
        ++w->at_grid;
        return;
    }
    if (t->state == kAtBarrier) {
        if (w->at_grid) {
            const CudaThread* g = first_in(w, kAtGrid);
            fmt_idx(a, sizeof a, t->idx);
            divergent(w, t->file, t->line, "__syncthreads() reached by thread %s while other threads of this block "
                      "wait at the grid.sync() at %s:%d", a, g->file, g->line);
        }
        if (w->done) {
            fmt_idx(a, sizeof a, t->idx);
            for (CudaThread& o : w->threads)
                if (o.state == kDone) { fmt_idx(b, sizeof b, o.idx); break; }
            divergent(w, t->file, t->line, "__syncthreads() reached by thread %s, but thread %s has exited", a, b);
        }
        if (w->at_barrier == 0) {
            w->bar_file = t->file; w->bar_line = t->line; w->bar_op = t->op;
            w->bar_acc = t->op == 2 ? 1 : 0;
        } else if (w->bar_line != t->line || !same_file(w->bar_file, t->file)) {
            w->bar_mixed = true;   // reported once every thread has arrived somewhere (see mixed_barriers)
        }
        if (w->bar_op == 1) w->bar_acc += t->pred != 0;
        else if (w->bar_op == 2) w->bar_acc &= t->pred != 0;
        else if (w->bar_op == 3) w->bar_acc |= t->pred != 0;
        if (++w->at_barrier == w->n && w->bar_mixed) mixed_barriers(w);
        if (w->at_barrier == w->n) {
            w->at_barrier = 0;
            ++w->bar_phase;
            w->bar_result = w->bar_acc;
            size_t first = w->ready.size();
            for (unsigned i = 0; i < w->n; ++i) release(w, i);
            if (g_seed) {
                if (w->head == 0) first = 0;
                for (size_t i = w->ready.size(); i > first + 1; --i)
                    std::swap(w->ready[i - 1], w->ready[first + rng.next() % (i - first)]);
            }
        }
        return;
    }
    if (t->state == kAtWarp) {
        Warp& wp = w->warps[t->linear / 32];
        unsigned lane = t->linear % 32, bit = 1u << lane;
        unsigned req = (t->mask & wp.existing) | bit;
        if (!wp.arrived) { wp.what = t->what; wp.file = t->file; wp.line = t->line; }
        wp.arrived |= bit;
        if (req & wp.exited) {
            unsigned gone = __builtin_ctz(req & wp.exited);
            fmt_idx(a, sizeof a, t->idx);
            fmt_idx(b, sizeof b, w->threads[(t->linear / 32) * 32 + gone].idx);
            divergent(w, t->file, t->line, "%s by thread %s names lane %u (thread %s), which has exited",
                      t->what, a, gone, b);
        }
        if ((wp.arrived & req) == req) {
            wp.members[wp.gen & 1] = req;
            wp.arrived &= ~req;
            ++wp.gen;
            size_t first = w->ready.size();
            for (unsigned l = 0; l < 32; ++l)
                if ((req >> l) & 1u) release(w, (t->linear / 32) * 32 + l);
            if (g_seed) {   // the lanes go on in a seeded order too: lane 0 first would hide its writes' races
                if (w->head == 0) first = 0;
                for (size_t i = w->ready.size(); i > first + 1; --i)
                    std::swap(w->ready[i - 1], w->ready[first + rng.next() % (i - first)]);
            }
        }
        return;
    }
}

// Threads of one block wait at different __syncthreads() calls.  The call reached by
// fewer threads is the one inside divergent control flow; it is the line reported.
[[noreturn]] static void mixed_barriers(Worker* w) {
    struct Site { const char* file; int line; unsigned count; uint3 first; };
    std::vector<Site> sites;
    for (const CudaThread& t : w->threads) {
        if (t.state != kAtBarrier) continue;
        auto it = std::find_if(sites.begin(), sites.end(),
                               [&](const Site& s) { return s.line == t.line && same_file(s.file, t.file); });
        if (it == sites.end()) sites.push_back(Site{t.file, t.line, 1, t.idx});
        else ++it->count;
    }
    std::stable_sort(sites.begin(), sites.end(), [](const Site& a, const Site& b) { return a.count < b.count; });
    const Site& few = sites[0];
    const Site& many = sites.back();
    char a[48];
    fmt_idx(a, sizeof a, few.first);
    divergent(w, few.file, few.line,
              "__syncthreads() reached by %u of %u threads (thread %s among them); the other %u wait at the "
              "__syncthreads() at %s:%d", few.count, w->n, a, w->n - few.count, many.file, many.line);
}

static void deadlock(Worker* w) {
    bool any_bar = false;
    for (const CudaThread& t : w->threads) any_bar |= t.state == kAtBarrier;
    if (any_bar && w->bar_mixed) mixed_barriers(w);
    const CudaThread* bar = nullptr;
    const CudaThread* warp = nullptr;
    for (const CudaThread& t : w->threads) {
        if (t.state == kAtBarrier && !bar) bar = &t;
        if (t.state == kAtWarp && !warp) warp = &t;
    }
    char a[48];
    if (bar && warp) {
        fmt_idx(a, sizeof a, warp->idx);
        divergent(w, bar->file, bar->line, "__syncthreads() can never complete: thread %s waits at %s at %s:%d",
                  a, warp->what, warp->file, warp->line);
    }
    if (warp) {
        fmt_idx(a, sizeof a, warp->idx);
        divergent(w, warp->file, warp->line, "%s by thread %s waits for lanes that never arrive", warp->what, a);
    }
    finding(kExitInternal, "internal", w->site->file, w->site->line, "scheduler stalled in kernel %s",
            w->site->kernel);
}

// A block's threads as fibers, in three steps so that a cooperative launch can hold many
// blocks at once: begin (all threads ready), run until no thread is ready, end.
static void begin_block_fibers(Worker* w, Rng& rng) {
    const unsigned n = w->n;
    while (w->fibers.size() < n) w->fibers.push_back(new_fiber());
    w->threads.resize(n);
    w->warps.assign((n + 31) / 32, Warp());
    for (unsigned i = 0; i < n; ++i) {
        w->threads[i] = CudaThread{thread_index(i, blockDim), i, kReady, w->fibers[i], nullptr, 0, nullptr, 0, 0, 0,
                                   nullptr};
        T2C_TSAN_DO(w->threads[i].tsan = __tsan_create_fiber(0));
        w->warps[i / 32].existing |= 1u << (i % 32);
    }
    w->ready.resize(n);
    for (unsigned i = 0; i < n; ++i) w->ready[i] = i;
    if (g_seed) rng.shuffle(w->ready);
    w->head = 0;
    w->done = w->at_barrier = w->at_grid = 0;
    w->bar_mixed = false;
    T2C_TSAN_DO(w->sched_tsan = __tsan_get_current_fiber());
    T2C_TSAN_DO(__tsan_release(&w->start_token));
}

// Runs ready threads until none is: true when the block has finished, false when all its
// threads wait at grid.sync(); anything else can never go on and is reported.
static bool run_block_ready(Worker* w, Rng& rng) {
    for (;;) {
        while (w->head < w->ready.size()) {
            CudaThread* t = &w->threads[w->ready[w->head++]];
            w->cur = t;
            threadIdx = t->idx;
            t->state = kRunning;
            T2C_TSAN_DO(__tsan_switch_to_fiber(t->tsan, 1));
            enter_fiber(&w->sched, t->fiber);
            after_switch(w, t, rng);
        }
        w->ready.clear();
        w->head = 0;
        if (w->done == w->n) return true;
        if (w->at_grid == w->n) return false;
        deadlock(w);
    }
}

static void end_block_fibers(Worker* w) {
    T2C_TSAN_DO(__tsan_acquire(&w->end_token));
    T2C_TSAN_DO(for (CudaThread& t : w->threads) __tsan_destroy_fiber(t.tsan));
    w->cur = nullptr;
}

static void run_block_fibers(Worker* w, Rng& rng) {
    begin_block_fibers(w, rng);
    if (!run_block_ready(w, rng))   // grid_sync reports a plain launch's grid.sync() before this
        finding(kExitInternal, "internal", w->site->file, w->site->line, "grid.sync() in a plain launch of %s",
                w->site->kernel);
    end_block_fibers(w);
}

// A thread's asynchronous copies: in a plain loop (no barrier anywhere) at once, in a fiber
// queued until the thread waits for their batch.
static void do_copy(const AsyncCopy& c) {
    memcpy(c.dst, c.src, c.size - c.zfill);
    memset((char*)c.dst + (c.size - c.zfill), 0, c.zfill);
}

void pipeline_memcpy_async(void* dst, const void* src, size_t size, size_t zfill, const char* file, int line) {
    if ((size != 4 && size != 8 && size != 16) || zfill > size)
        finding(kExitUnsupported, "unsupported", file, line,
                "__pipeline_memcpy_async copies 4, 8 or 16 bytes and zero-fills at most that many (got %zu, %zu)",
                size, zfill);
    if ((uintptr_t)dst % size || (size > zfill && (uintptr_t)src % size))
        finding(kExitMemory, "misaligned-address", file, line,
                "__pipeline_memcpy_async of %zu bytes needs addresses aligned to %zu bytes", size, size);
    Worker* w = tw;
    CudaThread* t = w ? w->cur : nullptr;
    AsyncCopy c{dst, src, size, zfill, t ? t->commits : 0};
    if (t) t->copies.push_back(c);
    else do_copy(c);
}

void pipeline_commit() {
    Worker* w = tw;
    if (w && w->cur) w->cur->commits++;
}

void pipeline_wait_prior(size_t n) {
    Worker* w = tw;
    CudaThread* t = w ? w->cur : nullptr;
    if (!t || t->copies.empty()) return;
    size_t kept = 0;
    for (const AsyncCopy& c : t->copies) {
        if ((size_t)c.batch + n < (size_t)t->commits) do_copy(c);
        else t->copies[kept++] = c;
    }
    t->copies.resize(kept);
}

static void run_block_plain(Worker* w, Rng& rng, std::vector<unsigned>& order) {
    const unsigned n = w->n;
    w->cur = nullptr;
    if (!g_seed) {
        for (unsigned i = 0; i < n; ++i) { threadIdx = thread_index(i, blockDim); w->body(w->ctx); }
        return;
    }
    order.resize(n);
    for (unsigned i = 0; i < n; ++i) order[i] = i;
    rng.shuffle(order);
    for (unsigned i : order) { threadIdx = thread_index(i, blockDim); w->body(w->ctx); }
}

[[noreturn]] static void not_in_fiber(const char* what, const char* file, int line) {
    Worker* w = tw;
    if (!w || !w->site)
        finding(kExitUnsupported, "unsupported", file, line, "%s called from host code", what);
    finding(kExitInternal, "internal", file, line,
            "kernel %s was classified free of barriers but called %s; please report this .cu file",
            w->site->kernel, what);
}

void syncthreads(const char* file, int line) { syncthreads_op(0, 0, file, line); }

int syncthreads_op(int op, int predicate, const char* file, int line) {
    Worker* w = tw;
    CudaThread* t = w ? w->cur : nullptr;
    if (!t) not_in_fiber("__syncthreads()", file, line);
    t->state = kAtBarrier;
    t->file = file; t->line = line; t->op = op; t->pred = predicate;
    char* token = &w->bar_tokens[w->bar_phase & 1];
    (void)token;
    T2C_TSAN_DO(__tsan_release(token));
    T2C_TSAN_DO(__tsan_switch_to_fiber(w->sched_tsan, 1));
    leave_fiber(t->fiber, &w->sched);
    T2C_TSAN_DO(__tsan_acquire(token));
    return w->bar_result;
}

bool grid_is_cooperative() { return tg_grid != nullptr; }

void grid_sync(const char* file, int line) {
    Worker* w = tw;
    CudaThread* t = w ? w->cur : nullptr;
    if (!t) not_in_fiber("grid.sync()", file, line);
    if (!tg_grid)
        finding(kExitDivergent, "grid-sync", file, line,
                "grid.sync() in kernel %s, which was not launched with cudaLaunchCooperativeKernel: only a "
                "cooperative launch keeps every block resident, so that the grid can wait for all of them",
                w->site->kernel);
    t->state = kAtGrid;
    t->file = file; t->line = line;
    char* token = &tg_grid->tokens[tg_grid->generation & 1];
    (void)token;
    T2C_TSAN_DO(__tsan_release(token));
    T2C_TSAN_DO(__tsan_switch_to_fiber(w->sched_tsan, 1));
    leave_fiber(t->fiber, &w->sched);
    T2C_TSAN_DO(__tsan_acquire(token));
}

WarpView warp_exchange(unsigned mask, uint64_t value, const char* what, const char* file, int line) {
    Worker* w = tw;
    CudaThread* t = w ? w->cur : nullptr;
    if (!t) not_in_fiber(what, file, line);
    Warp& wp = w->warps[t->linear / 32];
    unsigned lane = t->linear % 32, g = wp.gen & 1;
    wp.slots[g][lane] = value;
    t->state = kAtWarp;
    t->mask = mask; t->what = what; t->file = file; t->line = line;
    T2C_TSAN_DO(__tsan_release(&wp.tokens[g]));
    T2C_TSAN_DO(__tsan_switch_to_fiber(w->sched_tsan, 1));
    leave_fiber(t->fiber, &w->sched);
    T2C_TSAN_DO(__tsan_acquire(&wp.tokens[g]));
    return WarpView{wp.slots[g], lane, wp.members[g]};
}

unsigned activemask() {
    Worker* w = tw;
    if (!w || !w->site) return 0xffffffffu;
    unsigned linear = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    unsigned first = linear / 32 * 32, live = 0;
    for (unsigned l = 0; l < 32 && first + l < w->n; ++l)
        if (!w->cur || w->threads[first + l].state != kDone) live |= 1u << l;
    return live;
}

// ---------------------------------------------------------------- shared memory

void* shared_alloc(const void* key, size_t size, size_t align, const char* file, int line) {
    Worker* w = tw;
    if (!w || !w->site)
        finding(kExitUnsupported, "unsupported", file, line, "__shared__ variable used outside a kernel");
    for (const SharedVar& s : w->shared)
        if (s.key == key) {
            T2C_TSAN_DO(__tsan_acquire(s.ptr));   // the allocating thread's poisoning is not a race
            return s.ptr;
        }
    w->static_shared_bytes += size;
    if (w->static_shared_bytes > 48 * 1024)
        finding(kExitInternal, "resource", file, line,
                "kernel %s declares %zu bytes of static __shared__ memory; a block may have at most 48 KiB "
                "(use dynamic shared memory and cudaFuncSetAttribute for more)",
                w->site->kernel, w->static_shared_bytes);
    void* p = nullptr;
    if (posix_memalign(&p, std::max<size_t>(align, 16), size ? size : 1))
        finding(kExitInternal, "internal", file, line, "out of memory for __shared__ storage");
    memset(p, kPoison, size);
    T2C_TSAN_DO(__tsan_release(p));
    w->shared.push_back(SharedVar{key, p, size});
    return p;
}

void* dynamic_shared(const char* file, int line) {
    Worker* w = tw;
    if (!w || !w->site)
        finding(kExitUnsupported, "unsupported", file, line, "extern __shared__ array used outside a kernel");
    return w->dyn;
}

// ---------------------------------------------------------------- device memory bookkeeping

enum AllocKind { kDevice, kManaged, kPinned, kSymbol, kRegistered };
static const char* const kKindName[] = {"cudaMalloc", "cudaMallocManaged", "cudaMallocHost",
                                        "__device__ variable", "cudaHostRegister"};
struct Alloc { size_t size; AllocKind kind; const char* file; int line; const char* name; };

struct MemoryTable {
    std::mutex mu;
    std::map<uintptr_t, Alloc> allocs;
};
static MemoryTable& mem() {   // a function-local table: __device__ variables register during static init
    static MemoryTable* t = new MemoryTable;
    return *t;
}

// The allocation containing [p, p+n); false when p is in none.  `end_ok` accepts the
// one-past-the-end address (an end pointer passed to a kernel).
static bool find_alloc(const void* p, uintptr_t* start, Alloc* out, bool end_ok = false) {
    MemoryTable& m = mem();
    std::lock_guard<std::mutex> g(m.mu);
    uintptr_t a = (uintptr_t)p;
    auto it = m.allocs.upper_bound(a);
    if (it == m.allocs.begin()) return false;
    --it;
    if (a < it->first + it->second.size || (a == it->first && it->second.size == 0) ||
        (end_ok && a == it->first + it->second.size)) {
        *start = it->first; *out = it->second; return true;
    }
    return false;
}

static void record(void* p, size_t size, AllocKind kind, const char* file, int line, const char* name = nullptr) {
    MemoryTable& m = mem();
    std::lock_guard<std::mutex> g(m.mu);
    m.allocs[(uintptr_t)p] = Alloc{size, kind, file, line, name};
}

Symbol::Symbol(const void* p, size_t size, const char* name, const char* file, int line) {
    record(const_cast<void*>(p), size, kSymbol, file, line, name);
}

static bool device_side(AllocKind k) { return k == kDevice || k == kManaged || k == kSymbol; }

// Checks that [p, p+n) lies inside one device-visible allocation; reports otherwise.
static void check_device_range(Site s, const char* api, const char* role, const void* p, size_t n) {
    uintptr_t start; Alloc a;
    if (!find_alloc(p, &start, &a) || !device_side(a.kind))
        finding(kExitMemory, "oob", s.file, s.line,
                "%s: the %s %p is not device memory (allocate it with cudaMalloc, or check the copy direction)",
                api, role, p);
    size_t off = (uintptr_t)p - start;
    if (off + n > a.size)
        finding(kExitMemory, "oob", s.file, s.line,
                "%s: %zu bytes at offset %zu overrun the %s of %zu bytes (%s:%d)", api, n, off,
                a.name ? a.name : kKindName[a.kind], a.size, a.file ? a.file : "?", a.line);
}

static void check_host_side(Site s, const char* api, const char* role, const void* p) {
    uintptr_t start; Alloc a;
    if (find_alloc(p, &start, &a) && (a.kind == kDevice || a.kind == kSymbol))
        finding(kExitMemory, "oob", s.file, s.line,
                "%s: the %s %p is device memory (from %s:%d) but the copy kind says host", api, role, p,
                a.file ? a.file : "?", a.line);
}

void check_kernel_pointer(const LaunchSite& site, int index, const void* p) {
    if (!p) return;
    uintptr_t start; Alloc a;
    if (!find_alloc(p, &start, &a, true))
        finding(kExitMemory, "oob", site.file, site.line,
                "argument %d of kernel %s is a host pointer (%p): a kernel can only use memory from cudaMalloc, "
                "cudaMallocManaged, cudaMallocHost or a __device__ variable",
                index, site.kernel, p);
}

// ---------------------------------------------------------------- launch

static cudaError_t g_last_error = cudaSuccess;
static std::atomic<unsigned long long> g_launches{0};
static int g_max_dynamic_shared = 48 * 1024;

void set_max_dynamic_shared(int bytes) { if (bytes > g_max_dynamic_shared) g_max_dynamic_shared = bytes; }

// The emulated device: H200 multiprocessors, but few of them (cudaDeviceProp in types.h says why).
// A cooperative grid keeps all its threads alive as fibers, at most 2 x 2048 here: ThreadSanitizer
// (the race check) holds no more than 8128 threads and fibers at once.
static const int kMultiprocessors = 2;
static const int kThreadsPerMultiprocessor = 2048, kBlocksPerMultiprocessor = 32;
static const size_t kSharedPerMultiprocessor = 233472, kSharedPerBlockOptin = 232448, kSharedReservedPerBlock = 1024;

int multiprocessor_count() { return kMultiprocessors; }

int blocks_per_multiprocessor(int block_threads, size_t dynamic_shared) {
    if (block_threads <= 0 || block_threads > 1024 || dynamic_shared > kSharedPerBlockOptin) return 0;
    int by_threads = kThreadsPerMultiprocessor / (32 * ((block_threads + 31) / 32));   // whole warps
    int by_shared = (int)(kSharedPerMultiprocessor / (dynamic_shared + kSharedReservedPerBlock));
    return std::min({kBlocksPerMultiprocessor, by_threads, by_shared});
}

// A launch that does not start: a note on stderr, the error kept for cudaGetLastError.
static cudaError_t launch_fails(const LaunchSite& site, cudaError_t e, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static cudaError_t launch_fails(const LaunchSite& site, cudaError_t e, const char* fmt, ...) {
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    note("launch of %s at %s:%d fails: %s", site.kernel, site.file, site.line, why);
    g_last_error = e;
    return e;
}

cudaError_t missing_arguments(const LaunchSite& site) {
    return launch_fails(site, cudaErrorInvalidValue, "the kernel takes parameters but args is null");
}

// Launches run one after another here, so letting one begin before the previous finishes
// (programmatic dependent launch) or a priority changes nothing; a cooperative launch is
// modelled; the rest is not.
bool check_launch_attributes(const LaunchSite& site, const cudaLaunchConfig_t* config) {
    bool cooperative = false;
    for (unsigned i = 0; config->attrs && i < config->numAttrs; ++i) {
        cudaLaunchAttributeID id = config->attrs[i].id;
        if (id == cudaLaunchAttributeCooperative) cooperative = config->attrs[i].val.cooperative != 0;
        else if (id != cudaLaunchAttributeIgnore && id != cudaLaunchAttributeProgrammaticStreamSerialization &&
                 id != cudaLaunchAttributePriority)
            finding(kExitUnsupported, "unsupported", site.file, site.line,
                    "cudaLaunchKernelEx of %s: launch attribute %d is not modelled by the emulator (only "
                    "cooperative, programmatic stream serialization and priority are)", site.kernel, (int)id);
    }
    return cooperative;
}

static void begin_block_memory(Worker* w, const LaunchSite& site, size_t smem) {
    w->static_shared_bytes = 0;
    if (posix_memalign(&w->dyn, 16, smem ? smem : 1))
        finding(kExitInternal, "internal", site.file, site.line, "out of memory for dynamic shared memory");
    memset(w->dyn, kPoison, smem);
}

static void end_block_memory(Worker* w) {
    for (const SharedVar& s : w->shared) free(s.ptr);   // freed, so a stale pointer is a use-after-free
    w->shared.clear();
    free(w->dyn);
    w->dyn = nullptr;
}

static uint3 block_index(unsigned long long b, dim3 grid) {
    return uint3{(unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y), (unsigned)(b / ((unsigned long long)grid.x * grid.y))};
}

static Rng block_rng(unsigned long long launch_id, unsigned long long b) {
    return Rng(g_seed * 0x2545f4914f6cdd1dull + launch_id * 0x9e3779b97f4a7c15ull + b);
}

static void run_blocks(const LaunchSite& site, dim3 grid, dim3 block, size_t smem, bool fibers, ThreadBody body,
                       void* ctx, const std::vector<unsigned long long>& order, std::atomic<size_t>& next,
                       unsigned long long launch_id) {
    Worker* w = worker();
    w->site = &site; w->body = body; w->ctx = ctx; w->n = block.x * block.y * block.z;
    gridDim = grid;
    blockDim = block;
    std::vector<unsigned> plain_order;
    const unsigned long long total = (unsigned long long)grid.x * grid.y * grid.z;
    for (;;) {
        size_t k = next.fetch_add(1);
        if (k >= total) break;
        unsigned long long b = order.empty() ? k : order[k];
        blockIdx = block_index(b, grid);
        Rng rng = block_rng(launch_id, b);
        begin_block_memory(w, site, smem);
        if (fibers) run_block_fibers(w, rng);
        else run_block_plain(w, rng, plain_order);
        end_block_memory(w);
    }
    w->site = nullptr;
}

// A cooperative launch holds every block at once, each with its own Worker (fibers, shared
// memory), all on this OS thread.  Rounds run each unfinished block (in a seeded order) until
// its threads have finished or all wait at grid.sync(); when every block waits, all go on,
// so a write before grid.sync() is seen by every block after it.  A block that finishes while
// others wait is a barrier the grid can never complete.
static void run_cooperative(const LaunchSite& site, dim3 grid, dim3 block, size_t smem, ThreadBody body, void* ctx,
                            unsigned long long launch_id) {
    static std::vector<std::unique_ptr<Worker>> pool;   // kept, with their fibers, for later launches
    const unsigned long long total = (unsigned long long)grid.x * grid.y * grid.z;
    while (pool.size() < total) pool.emplace_back(new Worker);
    GridBarrier barrier;
    Worker* const outer = tw;
    tg_grid = &barrier;
    gridDim = grid;
    blockDim = block;
    std::vector<Rng> rngs;
    std::vector<unsigned long long> order(total);
    for (unsigned long long b = 0; b < total; ++b) {
        Worker* w = pool[b].get();
        w->site = &site; w->body = body; w->ctx = ctx; w->n = block.x * block.y * block.z;
        w->block = block_index(b, grid);
        begin_block_memory(w, site, smem);
        rngs.push_back(block_rng(launch_id, b));
        tw = w;
        blockIdx = w->block;
        begin_block_fibers(w, rngs.back());
        order[b] = b;
    }
    Rng round_rng(g_seed ^ (launch_id * 0xd1b54a32d192ed03ull));
    std::vector<char> finished(total, 0);
    const Worker* exited = nullptr;
    for (;;) {
        if (g_seed) round_rng.shuffle(order);
        const Worker* waiting = nullptr;
        unsigned long long waiters = 0;
        for (unsigned long long b : order) {
            if (finished[b]) continue;
            Worker* w = pool[b].get();
            tw = w;
            blockIdx = w->block;
            if (run_block_ready(w, rngs[b])) {
                end_block_fibers(w);
                end_block_memory(w);
                w->site = nullptr;
                finished[b] = 1;
                exited = w;
            } else {
                waiting = w;
                ++waiters;
            }
        }
        if (!waiting) break;
        if (exited) {
            const CudaThread* t = first_in(waiting, kAtGrid);
            finding(kExitDivergent, "divergent-barrier", t->file, t->line,
                    "grid.sync() waited for by %llu of the %llu blocks of kernel %s, but block (%u,%u,%u) exited "
                    "without reaching it (every thread of the grid must reach it)", waiters, total, site.kernel,
                    exited->block.x, exited->block.y, exited->block.z);
        }
        ++barrier.generation;
        for (unsigned long long b = 0; b < total; ++b) {
            Worker* w = pool[b].get();
            w->at_grid = 0;
            for (unsigned i = 0; i < w->n; ++i) release(w, i);
            if (g_seed) rngs[b].shuffle(w->ready);
        }
    }
    tw = outer;
    tg_grid = nullptr;
}

cudaError_t launch_erased(const LaunchSite& site, dim3 grid, dim3 block, size_t smem, cudaStream_t, bool fibers,
                          bool cooperative, ThreadBody body, void* ctx) {
    if (tw && tw->site)
        finding(kExitUnsupported, "unsupported", site.file, site.line,
                "kernel launch inside a kernel (dynamic parallelism)");
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
        return launch_fails(site, cudaErrorInvalidConfiguration, "invalid configuration (grid %ux%ux%u, block %ux%ux%u)",
                            grid.x, grid.y, grid.z, block.x, block.y, block.z);
    if (site.max_threads && threads > site.max_threads)
        return launch_fails(site, cudaErrorInvalidValue, "a block of %llu threads exceeds the kernel's "
                            "__launch_bounds__ maximum of %u threads", threads, site.max_threads);
    if (smem > (size_t)g_max_dynamic_shared)
        return launch_fails(site, cudaErrorInvalidValue, "%zu bytes of dynamic shared memory exceed the %d-byte limit "
                            "(raise it with cudaFuncSetAttribute)", smem, g_max_dynamic_shared);
    const unsigned long long total = (unsigned long long)grid.x * grid.y * grid.z;
    const unsigned long long launch_id = g_launches.fetch_add(1);
    if (cooperative) {
        int per_sm = blocks_per_multiprocessor((int)threads, smem);
        if (total > (unsigned long long)per_sm * kMultiprocessors)
            return launch_fails(site, cudaErrorCooperativeLaunchTooLarge,
                                "a cooperative grid of %llu blocks exceeds the %d x %d blocks of %llu threads (and %zu "
                                "bytes of dynamic shared memory) the device holds at once; size the grid from "
                                "cudaOccupancyMaxActiveBlocksPerMultiprocessor and cudaDevAttrMultiProcessorCount",
                                total, per_sm, kMultiprocessors, threads, smem);
        run_cooperative(site, grid, block, smem, body, ctx, launch_id);
        return cudaSuccess;
    }
#ifdef T2C_TSAN
    fibers = true;   // a plain loop would run all threads as one TSan thread and hide races
#endif
    std::vector<unsigned long long> order;
    if (g_seed && total > 1 && total <= (1ull << 26)) {
        order.resize(total);
        for (unsigned long long i = 0; i < total; ++i) order[i] = i;
        Rng rng(g_seed ^ (launch_id * 0xd1b54a32d192ed03ull));
        rng.shuffle(order);
    }
    std::atomic<size_t> next{0};
    unsigned nthreads = (unsigned)std::min<unsigned long long>(g_block_threads, total);
    if (nthreads <= 1) {
        run_blocks(site, grid, block, smem, fibers, body, ctx, order, next, launch_id);
        return cudaSuccess;
    }
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < nthreads; ++i)
        pool.emplace_back([&] { run_blocks(site, grid, block, smem, fibers, body, ctx, order, next, launch_id); });
    run_blocks(site, grid, block, smem, fibers, body, ctx, order, next, launch_id);
    for (std::thread& t : pool) t.join();
    return cudaSuccess;
}

cudaError_t copy_to_symbol(Site s, void* symbol, size_t symbol_size, const void* src, size_t count, size_t offset,
                           cudaMemcpyKind kind) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        finding(kExitMemory, "oob", s.file, s.line,
                "cudaMemcpyToSymbol: copy kind %d; it must be cudaMemcpyHostToDevice or DeviceToDevice", (int)kind);
    if (offset + count > symbol_size)
        finding(kExitMemory, "oob", s.file, s.line,
                "cudaMemcpyToSymbol: %zu bytes at offset %zu overrun the %zu-byte symbol", count, offset, symbol_size);
    if (kind == cudaMemcpyHostToDevice) check_host_side(s, "cudaMemcpyToSymbol", "source", src);
    else if (kind == cudaMemcpyDeviceToDevice) check_device_range(s, "cudaMemcpyToSymbol", "source", src, count);
    memmove((char*)symbol + offset, src, count);
    return cudaSuccess;
}

cudaError_t copy_from_symbol(Site s, void* dst, const void* symbol, size_t symbol_size, size_t count, size_t offset,
                             cudaMemcpyKind kind) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        finding(kExitMemory, "oob", s.file, s.line,
                "cudaMemcpyFromSymbol: copy kind %d; it must be cudaMemcpyDeviceToHost or DeviceToDevice", (int)kind);
    if (offset + count > symbol_size)
        finding(kExitMemory, "oob", s.file, s.line,
                "cudaMemcpyFromSymbol: %zu bytes at offset %zu overrun the %zu-byte symbol", count, offset,
                symbol_size);
    if (kind == cudaMemcpyDeviceToHost) check_host_side(s, "cudaMemcpyFromSymbol", "destination", dst);
    else if (kind == cudaMemcpyDeviceToDevice) check_device_range(s, "cudaMemcpyFromSymbol", "destination", dst, count);
    memmove(dst, (const char*)symbol + offset, count);
    return cudaSuccess;
}

struct Stream { int flags; };
struct Event { std::chrono::steady_clock::time_point t; bool recorded; };

}  // namespace t2c_emu

using namespace t2c_emu;

// ---------------------------------------------------------------- runtime API

static cudaError_t fail(cudaError_t e) { g_last_error = e; return e; }

static cudaError_t allocate(Site s, void** p, size_t size, AllocKind kind) {
    if (!p) return fail(cudaErrorInvalidValue);
    void* q = nullptr;
    if (posix_memalign(&q, 256, size ? size : 1)) { *p = nullptr; return fail(cudaErrorMemoryAllocation); }
    memset(q, kPoison, size);   // fresh device memory is garbage on a GPU too
    record(q, size, kind, s.file, s.line);
    *p = q;
    return cudaSuccess;
}

cudaError_t cudaMalloc(Site s, void** p, size_t size) { return allocate(s, p, size, kDevice); }
cudaError_t cudaMallocManaged(Site s, void** p, size_t size, unsigned) { return allocate(s, p, size, kManaged); }
cudaError_t cudaMallocHost(Site s, void** p, size_t size) { return allocate(s, p, size, kPinned); }
cudaError_t cudaHostAlloc(Site s, void** p, size_t size, unsigned) { return allocate(s, p, size, kPinned); }
cudaError_t cudaMallocPitch(Site s, void** p, size_t* pitch, size_t width, size_t height) {
    *pitch = (width + 255) / 256 * 256;
    return allocate(s, p, *pitch * height, kDevice);
}

static cudaError_t release_alloc(Site s, void* p, bool host, const char* api) {
    if (!p) return cudaSuccess;
    MemoryTable& m = mem();
    std::unique_lock<std::mutex> g(m.mu);
    auto it = m.allocs.find((uintptr_t)p);
    bool ok = it != m.allocs.end() && (host ? it->second.kind == kPinned
                                            : (it->second.kind == kDevice || it->second.kind == kManaged));
    if (!ok) {
        g.unlock();
        finding(kExitMemory, "oob", s.file, s.line, "%s(%p): not a pointer that %s returned (or freed twice)", api, p,
                host ? "cudaMallocHost" : "cudaMalloc");
    }
    m.allocs.erase(it);
    g.unlock();
    free(p);
    return cudaSuccess;
}
cudaError_t cudaFree(Site s, void* p) { return release_alloc(s, p, false, "cudaFree"); }
cudaError_t cudaFreeHost(Site s, void* p) { return release_alloc(s, p, true, "cudaFreeHost"); }

cudaError_t cudaHostRegister(void* p, size_t size, unsigned) { record(p, size, kRegistered, nullptr, 0); return cudaSuccess; }
cudaError_t cudaHostUnregister(void* p) {
    MemoryTable& m = mem();
    std::lock_guard<std::mutex> g(m.mu);
    m.allocs.erase((uintptr_t)p);
    return cudaSuccess;
}
cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned) { *d = h; return cudaSuccess; }

static const char* kind_name(cudaMemcpyKind k) {
    static const char* const names[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                        "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
    return (unsigned)k < 5 ? names[k] : "an invalid cudaMemcpyKind";
}

static void check_copy(Site s, const char* api, void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
    if (n == 0) return;
    char what[96];
    snprintf(what, sizeof what, "%s(..., %s)", api, kind_name(kind));
    switch (kind) {
        case cudaMemcpyHostToDevice:
            check_device_range(s, what, "destination", dst, n); check_host_side(s, what, "source", src); break;
        case cudaMemcpyDeviceToHost:
            check_device_range(s, what, "source", src, n); check_host_side(s, what, "destination", dst); break;
        case cudaMemcpyDeviceToDevice:
            check_device_range(s, what, "destination", dst, n); check_device_range(s, what, "source", src, n); break;
        case cudaMemcpyHostToHost:
            check_host_side(s, what, "destination", dst); check_host_side(s, what, "source", src); break;
        case cudaMemcpyDefault: {
            uintptr_t start; Alloc a;
            if (find_alloc(dst, &start, &a) && device_side(a.kind)) check_device_range(s, what, "destination", dst, n);
            if (find_alloc(src, &start, &a) && device_side(a.kind)) check_device_range(s, what, "source", src, n);
            break;
        }
        default:
            finding(kExitMemory, "oob", s.file, s.line, "%s: invalid copy kind %d", api, (int)kind);
    }
}

cudaError_t cudaMemcpy(Site s, void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
    check_copy(s, "cudaMemcpy", dst, src, n, kind);
    if (n) memmove(dst, src, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(Site s, void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t) {
    check_copy(s, "cudaMemcpyAsync", dst, src, n, kind);
    if (n) memmove(dst, src, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpy2D(Site s, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t r = 0; r < height; ++r) {
        char* d = (char*)dst + r * dpitch;
        const char* q = (const char*)src + r * spitch;
        check_copy(s, "cudaMemcpy2D", d, q, width, kind);
        memmove(d, q, width);
    }
    return cudaSuccess;
}
cudaError_t cudaMemset(Site s, void* p, int value, size_t n) {
    if (n) check_device_range(s, "cudaMemset", "destination", p, n);
    memset(p, value, n);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(Site s, void* p, int value, size_t n, cudaStream_t) {
    if (n) check_device_range(s, "cudaMemsetAsync", "destination", p, n);
    memset(p, value, n);
    return cudaSuccess;
}

cudaError_t cudaMemset2D(Site s, void* p, size_t pitch, int value, size_t width, size_t height) {
    if (width > pitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t r = 0; r < height; ++r) {
        char* row = (char*)p + r * pitch;
        if (width) check_device_range(s, "cudaMemset2D", "destination", row, width);
        memset(row, value, width);
    }
    return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(Site s, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, cudaMemcpyKind kind, cudaStream_t) {
    return cudaMemcpy2D(s, dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMallocAsync(Site s, void** p, size_t size, cudaStream_t) { return allocate(s, p, size, kDevice); }
cudaError_t cudaFreeAsync(Site s, void* p, cudaStream_t) { return release_alloc(s, p, false, "cudaFreeAsync"); }

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *total_bytes = (size_t)pages * (size_t)page;
    *free_bytes = *total_bytes / 2;
    return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
    uintptr_t start; Alloc al;
    a->device = 0;
    a->devicePointer = a->hostPointer = nullptr;
    a->type = cudaMemoryTypeUnregistered;
    if (find_alloc(p, &start, &al)) {
        a->type = al.kind == kManaged ? cudaMemoryTypeManaged
                  : (al.kind == kPinned || al.kind == kRegistered) ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
        a->devicePointer = (void*)p;
        if (a->type != cudaMemoryTypeDevice) a->hostPointer = (void*)p;
    } else {
        a->hostPointer = (void*)p;
    }
    return cudaSuccess;
}

cudaError_t cudaGetLastError() { cudaError_t e = g_last_error; g_last_error = cudaSuccess; return e; }
cudaError_t cudaPeekAtLastError() { return g_last_error; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }

const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
#define T2C_E(x) case x: return #x;
        T2C_E(cudaSuccess) T2C_E(cudaErrorInvalidValue) T2C_E(cudaErrorMemoryAllocation)
        T2C_E(cudaErrorInitializationError) T2C_E(cudaErrorInvalidConfiguration) T2C_E(cudaErrorInvalidPitchValue)
        T2C_E(cudaErrorInvalidSymbol) T2C_E(cudaErrorInvalidDevicePointer) T2C_E(cudaErrorInvalidMemcpyDirection)
        T2C_E(cudaErrorInsufficientDriver) T2C_E(cudaErrorNoDevice) T2C_E(cudaErrorInvalidDevice)
        T2C_E(cudaErrorInvalidResourceHandle) T2C_E(cudaErrorNotReady) T2C_E(cudaErrorIllegalAddress)
        T2C_E(cudaErrorLaunchOutOfResources) T2C_E(cudaErrorLaunchFailure) T2C_E(cudaErrorNotSupported)
        T2C_E(cudaErrorCooperativeLaunchTooLarge)
#undef T2C_E
        default: return "cudaErrorUnknown";
    }
}
const char* cudaGetErrorString(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorInvalidDevicePointer: return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        case cudaErrorLaunchFailure: return "unspecified launch failure";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected";
        case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
        default: return cudaGetErrorName(e);
    }
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
    if (d != 0) return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "t2c emu (CPU emulation of %d H200-class multiprocessors)", kMultiprocessors);
    p->totalGlobalMem = 141ull << 30;
    p->sharedMemPerBlock = 48 * 1024;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024; p->maxThreadsDim[1] = 1024; p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647; p->maxGridSize[1] = 65535; p->maxGridSize[2] = 65535;
    p->clockRate = 1980000;
    p->totalConstMem = 65536;
    p->major = 9; p->minor = 0;
    p->textureAlignment = 512;
    p->deviceOverlap = 1;
    p->multiProcessorCount = kMultiprocessors;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->asyncEngineCount = 3;
    p->unifiedAddressing = 1;
    p->memoryClockRate = 2619000;
    p->memoryBusWidth = 6144;
    p->l2CacheSize = 60 * 1024 * 1024;
    p->persistingL2CacheMaxSize = 78643200;
    p->maxThreadsPerMultiProcessor = kThreadsPerMultiprocessor;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = kSharedPerMultiprocessor;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    p->maxBlocksPerMultiProcessor = kBlocksPerMultiprocessor;
    p->reservedSharedMemPerBlock = kSharedReservedPerBlock;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) return cudaErrorInvalidDevice;
    switch (a) {
        case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
        case cudaDevAttrTotalConstantMemory: *v = (int)p.totalConstMem; break;
        case cudaDevAttrWarpSize: *v = 32; break;
        case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
        case cudaDevAttrClockRate: *v = p.clockRate; break;
        case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
        case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = (int)p.sharedMemPerMultiprocessor; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
        case cudaDevAttrMemoryClockRate: *v = p.memoryClockRate; break;
        case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
        case cudaDevAttrCooperativeLaunch: *v = p.cooperativeLaunch; break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
        default: *v = 0; break;
    }
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* s) { *s = new Stream{0}; return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned f) { *s = new Stream{(int)f}; return cudaSuccess; }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned f, int) { *s = new Stream{(int)f}; return cudaSuccess; }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if ((uintptr_t)s > 2) delete s;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = new Event{{}, false}; return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { *e = new Event{{}, false}; return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    e->t = std::chrono::steady_clock::now();
    e->recorded = true;
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
    static std::atomic<int> warned{0};
    if (!a || !b || !a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
    if (!warned.exchange(1))
        note("cudaEventElapsedTime measures the CPU emulator: the times are not meaningful for a GPU");
    *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }

// Sanitizer defaults: fibers need detect_stack_use_after_return=0; CUDA programs rarely
// free everything, so leaks are not findings; a failed cudaMalloc returns an error.
extern "C" const char* __asan_default_options() {
    return "detect_stack_use_after_return=0:detect_leaks=0:allocator_may_return_null=1:exitcode=94";
}
extern "C" const char* __tsan_default_options() {
    return "halt_on_error=0:exitcode=92:report_signal_unsafe=0:history_size=4:suppress_equal_stacks=0";
}
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1:exitcode=93"; }
