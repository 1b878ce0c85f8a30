/* The DRAM timing model's channel controller in C: the fast path of
 * accelsim/hw/dram_controller.py's ChannelController (the reference; its docstring is the
 * policy). Same state, same FR-FCFS choice, same float arithmetic in the same order, so the
 * results are bit-identical (tests/accelsim/hw/test_dram_native.py compares the two).
 * The FR-FCFS choice keeps one candidate per bank (the least (readiness, index) of its first
 * row hit and first miss inside the window, which share their bank's readiness) and the least
 * of them per bank group (only the served group's, and the group of the request entering the
 * window, change): the same request the reference's least key picks. Compiled with no
 * floating-point contraction (-ffp-contract=off). Built by accelsim/hw/dram_native.py: a
 * plain library (the ctypes entry ctl_*), and with -DACCELSIM_PYEXT also an extension module
 * (`Channels`, at the end: a DMA's whole DRAM side per call). */
#ifdef ACCELSIM_PYEXT
#define PY_SSIZE_T_CLEAN
#include <Python.h>  /* first, as the C API asks */
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NEVER (-1.0e18)

/* one request, packed (16 bytes: a run streams millions of them); its rank is its bank
 * group's (rank_of). The ctypes entry takes the Python reference's 5 int64s per request. */
typedef struct { int32_t b, g, row, k; } Req;

typedef struct {
    int64_t nb, ng, ranks, per_rank, bpg, *rank_of;
    double trp, trrd_l, trrd_s, tfaw, trcd, trc, tras, tb, tccd_l;
    double tcl, tcwl, twr, twtr, trtw, trtp, trefi, trfc;
    int64_t open_page, read_queue, write_queue, write_high, write_low;
    int64_t tb_i, tccd_l_i;  /* tBURST and tCCD_L as the integers they are (Python's ints) */
    int64_t *open_row; double *act_ok, *cas_ok, *pre_ok, *bg_next, *last_act_bg;
    double *last_act, *faw; int64_t *nfaw; double *next_ref;
    double bus, last_read, last_wdata;
    Req *wq; int64_t nwq, capwq, pending;
    int64_t hits, misses, conflicts, refreshes;
    /* scratch of a batch */
    int64_t cap; unsigned char *served; int64_t *pstart, *pcount, *plist, *head, *hit, *miss;
    double *ck; int64_t *ci;   /* per bank: its candidate (readiness, request index) */
    double *gk; int64_t *gi;   /* per bank group: its banks' least candidate */
    int64_t *gof;              /* per bank: its bank group */
    Req *tmp; int64_t captmp;
    /* the write queue's (bank, row) -> position, rebuilt per write call (generation stamps) */
    int64_t *wkey, *wval; uint64_t *wgen, wg; int64_t wcap;
    Req *in; int64_t capin;  /* the ctypes entry's requests, packed */
} Ctl;

Ctl *ctl_new(const int64_t *ip, const double *dp) {
    Ctl *c = calloc(1, sizeof(Ctl));
    c->ranks = ip[0]; c->bpg = ip[2]; c->ng = ip[0] * ip[1]; c->nb = c->ng * ip[2];
    c->per_rank = ip[1] * ip[2];
    c->rank_of = malloc(sizeof(int64_t) * c->ng);
    for (int64_t g = 0; g < c->ng; g++) c->rank_of[g] = g / ip[1];
    c->open_page = ip[3]; c->read_queue = ip[4]; c->write_queue = ip[5];
    c->write_high = ip[6]; c->write_low = ip[7];
    c->trp = dp[0]; c->trrd_l = dp[1]; c->trrd_s = dp[2]; c->tfaw = dp[3]; c->trcd = dp[4];
    c->trc = dp[5]; c->tras = dp[6]; c->tb = dp[7]; c->tccd_l = dp[8]; c->tcl = dp[9];
    c->tb_i = (int64_t)c->tb; c->tccd_l_i = (int64_t)c->tccd_l;
    c->tcwl = dp[10]; c->twr = dp[11]; c->twtr = dp[12]; c->trtw = dp[13]; c->trtp = dp[14];
    c->trefi = dp[15]; c->trfc = dp[16];
    c->open_row = malloc(sizeof(int64_t) * c->nb);
    c->act_ok = calloc(c->nb, sizeof(double)); c->cas_ok = calloc(c->nb, sizeof(double));
    c->pre_ok = calloc(c->nb, sizeof(double));
    c->bg_next = calloc(c->ng, sizeof(double)); c->last_act_bg = malloc(sizeof(double) * c->ng);
    c->last_act = malloc(sizeof(double) * c->ranks); c->faw = calloc(4 * c->ranks, sizeof(double));
    c->nfaw = calloc(c->ranks, sizeof(int64_t)); c->next_ref = malloc(sizeof(double) * c->ranks);
    for (int64_t i = 0; i < c->nb; i++) c->open_row[i] = -1;
    for (int64_t i = 0; i < c->ng; i++) c->last_act_bg[i] = NEVER;
    for (int64_t i = 0; i < c->ranks; i++) { c->last_act[i] = NEVER; c->next_ref[i] = c->trefi; }
    c->last_read = NEVER; c->last_wdata = NEVER;
    c->pstart = malloc(sizeof(int64_t) * c->nb); c->pcount = malloc(sizeof(int64_t) * c->nb);
    c->hit = malloc(sizeof(int64_t) * c->nb); c->miss = malloc(sizeof(int64_t) * c->nb);
    c->ck = malloc(sizeof(double) * c->nb); c->ci = malloc(sizeof(int64_t) * c->nb);
    c->head = malloc(sizeof(int64_t) * c->nb); c->gof = malloc(sizeof(int64_t) * c->nb);
    c->gk = malloc(sizeof(double) * c->ng); c->gi = malloc(sizeof(int64_t) * c->ng);
    for (int64_t b = 0; b < c->nb; b++) c->gof[b] = b / c->bpg;
    return c;
}

void ctl_free(Ctl *c) {
    free(c->open_row); free(c->act_ok); free(c->cas_ok); free(c->pre_ok); free(c->bg_next);
    free(c->last_act_bg); free(c->last_act); free(c->faw); free(c->nfaw); free(c->next_ref);
    free(c->wq); free(c->served); free(c->plist); free(c->pstart); free(c->pcount);
    free(c->hit); free(c->miss); free(c->ck); free(c->ci); free(c->tmp); free(c->head);
    free(c->gof); free(c->gk); free(c->gi); free(c->wkey); free(c->wval); free(c->wgen);
    free(c->rank_of); free(c->in); free(c);
}

/* bus, last_read, last_wdata, pending, hits, misses, conflicts, refreshes */
void ctl_stats(const Ctl *c, double *out) {
    out[0] = c->bus; out[1] = c->last_read; out[2] = c->last_wdata; out[3] = (double)c->pending;
    out[4] = (double)c->hits; out[5] = (double)c->misses; out[6] = (double)c->conflicts;
    out[7] = (double)c->refreshes;
}

/* Python's float floor division (Objects/floatobject.c float_floor_div), positive divisor */
static double py_floordiv(double vx, double wx) {
    double mod = fmod(vx, wx), div = (vx - mod) / wx, f;
    if (mod) { if ((wx < 0) != (mod < 0)) { mod += wx; div -= 1.0; } }
    if (div) { f = floor(div); if (div - f > 0.5) f += 1.0; }
    else f = copysign(0.0, vx / wx);
    return f;
}

static void refresh(Ctl *c, int64_t rank, double at) {
    int64_t late = (int64_t)py_floordiv(at - c->next_ref[rank], c->trefi);
    double due = c->next_ref[rank] + (double)(late * (int64_t)c->trefi);
    double start = due; int opened = 0;
    int64_t b0 = rank * c->per_rank, b1 = b0 + c->per_rank;
    for (int64_t b = b0; b < b1; b++)
        if (c->open_row[b] >= 0) { opened = 1; if (c->pre_ok[b] > start) start = c->pre_ok[b]; }
    if (opened) start += c->trp;
    double end = start + c->trfc;
    for (int64_t b = b0; b < b1; b++) { c->open_row[b] = -1; if (c->act_ok[b] < end) c->act_ok[b] = end; }
    c->next_ref[rank] = due + c->trefi;
    c->refreshes += late + 1;
}

static void reserve(Ctl *c, int64_t n) {
    if (n <= c->cap) return;
    c->cap = n * 2;
    c->served = realloc(c->served, c->cap);
    c->plist = realloc(c->plist, sizeof(int64_t) * c->cap);
}

/* bank b's first waiting hit and miss with index < wend (its list's served front skipped
 * for good) */
static inline __attribute__((always_inline)) void hit_miss(Ctl *c, const Req *r, int64_t b, int64_t wend) {
    int64_t o = c->open_row[b], h = -1, m = -1;
    int64_t *lst = c->plist + c->pstart[b], cnt = c->pcount[b], x = c->head[b];
    while (x < cnt && c->served[lst[x]]) x++;
    c->head[b] = x;
    for (; x < cnt; x++) {
        int64_t j = lst[x];
        if (j >= wend) break;
        if (c->served[j]) continue;
        if (r[j].row == o) { if (h < 0) { h = j; if (m >= 0) break; } }
        else if (m < 0) { m = j; if (h >= 0) break; }
    }
    c->hit[b] = h; c->miss[b] = m;
}

static inline __attribute__((always_inline)) void candidate(Ctl *c, int64_t b, double now) {
    double bk = INFINITY; int64_t bi = INT64_MAX;
    int64_t g = c->gof[b];
    if (c->hit[b] >= 0) {
        double x = c->cas_ok[b];
        if (c->bg_next[g] > x) x = c->bg_next[g];
        bk = x > now ? x : now; bi = c->hit[b];
    }
    if (c->miss[b] >= 0) {
        double x = c->act_ok[b];
        if (c->open_row[b] >= 0 && c->pre_ok[b] + c->trp > x) x = c->pre_ok[b] + c->trp;
        if (c->last_act_bg[g] + c->trrd_l > x) x = c->last_act_bg[g] + c->trrd_l;
        double k = x > now ? x : now;
        int lt = (k < bk) | ((k == bk) & (c->miss[b] < bi));
        bk = lt ? k : bk; bi = lt ? c->miss[b] : bi;
    }
    c->ck[b] = bk; c->ci[b] = bi;
}

/* bank group g's least candidate (readiness, then index) */
static inline __attribute__((always_inline)) void group_min(Ctl *c, int64_t g) {
    int64_t b0 = g * c->bpg, b1 = b0 + c->bpg;
    double k = c->ck[b0]; int64_t i = c->ci[b0];
    for (int64_t b = b0 + 1; b < b1; b++) {  /* branch-free: which bank wins is random */
        double kb = c->ck[b]; int64_t ib = c->ci[b];
        int lt = (kb < k) | ((kb == k) & (ib < i));
        k = lt ? kb : k; i = lt ? ib : i;
    }
    c->gk[g] = k; c->gi[g] = i;
}

/* Serve r[0..n) FR-FCFS (all, or until at most `stop` bursts are left, stop < 0: all); the
 * last data end. With stop >= 0 the requests left are written, in order, to c->tmp (count
 * returned in *left_n). */
static double batch(Ctl *c, const Req *r, int64_t n, double now, int write, int64_t window,
                    int64_t stop, int64_t *left_n) {
    double end = now;
    int64_t left = 0;
    if (stop >= 0) for (int64_t j = 0; j < n; j++) left += r[j].k;
    double turn = write ? c->trtw : c->twtr;
    double tail = write ? c->tcwl + c->tb : c->tcl + c->tb;
    double recover = write ? c->twr : c->trtp;
    double bus = c->bus, last_read = c->last_read, last_wdata = c->last_wdata;
    int64_t nb = c->nb;
    reserve(c, n);
    memset(c->served, 0, n);
    memset(c->pcount, 0, sizeof(int64_t) * nb);
    for (int64_t j = 0; j < n; j++) c->pcount[r[j].b]++;
    int64_t s = 0;
    for (int64_t b = 0; b < nb; b++) { c->pstart[b] = s; s += c->pcount[b]; c->pcount[b] = 0; }
    for (int64_t j = 0; j < n; j++) { int64_t b = r[j].b; c->plist[c->pstart[b] + c->pcount[b]++] = j; }
    int64_t wend = n < window ? n : window, ng = c->ng;
    memset(c->head, 0, sizeof(int64_t) * nb);
    for (int64_t b = 0; b < nb; b++) { hit_miss(c, r, b, wend); candidate(c, b, now); }
    for (int64_t gg = 0; gg < ng; gg++) group_min(c, gg);
    int64_t waiting = n;
    while (waiting && (stop < 0 || left > stop)) {
        /* the least candidate: the least of the groups' (the same (readiness, index)) */
        double bk = c->gk[0]; int64_t i = c->gi[0];
        for (int64_t gg = 1; gg < ng; gg++) {
            double kg = c->gk[gg]; int64_t ig = c->gi[gg];
            int lt = (kg < bk) | ((kg == bk) & (ig < i));
            bk = lt ? kg : bk; i = lt ? ig : i;
        }
        const Req *q = r + i;
        int64_t b = q->b, g = q->g, rank = c->rank_of[g], row = q->row, k = q->k;
        c->served[i] = 1;
        waiting--; left -= k;
        double start = now > bus ? now : bus;
        int refreshed = start >= c->next_ref[rank];
        if (refreshed) refresh(c, rank, start);
        int64_t o = c->open_row[b];
        double first, x, a;
        if (o == row) { first = c->cas_ok[b]; c->hits++; }
        else {
            if (o >= 0) { a = (c->pre_ok[b] > now ? c->pre_ok[b] : now) + c->trp; c->conflicts++; }
            else { a = now; c->misses++; }
            if (c->act_ok[b] > a) a = c->act_ok[b];
            x = c->last_act[rank] + c->trrd_s; if (x > a) a = x;
            x = c->last_act_bg[g] + c->trrd_l; if (x > a) a = x;
            double *faw = c->faw + 4 * rank;
            if (c->nfaw[rank] == 4) {
                x = faw[0] + c->tfaw; if (x > a) a = x;
                faw[0] = faw[1]; faw[1] = faw[2]; faw[2] = faw[3]; faw[3] = a;
            } else faw[c->nfaw[rank]++] = a;
            c->last_act[rank] = c->last_act_bg[g] = a;
            c->act_ok[b] = a + c->trc;
            c->pre_ok[b] = a + c->tras;
            c->open_row[b] = row;
            first = a + c->trcd;
        }
        if (now > first) first = now;
        if (c->bg_next[g] > first) first = c->bg_next[g];
        x = (write ? last_read : last_wdata) + turn;
        if (x > first) first = x;
        bus = (bus > first ? bus : first) + (double)(k * c->tb_i);
        double last = first + (double)((k - 1) * c->tccd_l_i);
        if (bus - c->tb > last) last = bus - c->tb;
        c->bg_next[g] = c->cas_ok[b] = last + c->tccd_l;
        double e = last + tail, p;
        if (write) { p = e + recover; if (e > last_wdata) last_wdata = e; }
        else { p = last + recover; if (last > last_read) last_read = last; }
        if (p > c->pre_ok[b]) c->pre_ok[b] = p;
        if (!c->open_page) {
            c->open_row[b] = -1;
            x = c->pre_ok[b] + c->trp;
            if (x > c->act_ok[b]) c->act_ok[b] = x;
        }
        if (e > end) end = e;
        int64_t entered = -1;
        if (wend < n) entered = r[wend++].b;
        if (refreshed) {
            for (int64_t bb = 0; bb < nb; bb++) { hit_miss(c, r, bb, wend); candidate(c, bb, now); }
            for (int64_t gg = 0; gg < ng; gg++) group_min(c, gg);
        } else {
            hit_miss(c, r, b, wend);
            if (entered >= 0 && entered != b) hit_miss(c, r, entered, wend);
            for (int64_t bb = g * c->bpg; bb < (g + 1) * c->bpg; bb++) candidate(c, bb, now);
            group_min(c, g);
            if (entered >= 0 && c->gof[entered] != g) {
                candidate(c, entered, now);
                group_min(c, c->gof[entered]);
            }
        }
    }
    c->bus = bus; c->last_read = last_read; c->last_wdata = last_wdata;
    if (stop >= 0) {
        if (c->captmp < n) { c->captmp = n; c->tmp = realloc(c->tmp, sizeof(Req) * n); }
        int64_t m = 0;
        for (int64_t j = 0; j < n; j++) if (!c->served[j]) c->tmp[m++] = r[j];
        *left_n = m;
    }
    return end;
}

static void requeue_from_tmp(Ctl *c, int64_t m) {
    if (c->capwq < m) { c->capwq = m * 2; c->wq = realloc(c->wq, sizeof(Req) * c->capwq); }
    memcpy(c->wq, c->tmp, sizeof(Req) * m);
    c->nwq = m; c->pending = 0;
    for (int64_t j = 0; j < m; j++) c->pending += c->wq[j].k;
}

static void drain_idle(Ctl *c, double until) {
    int64_t x = 0;
    while (x < c->nwq && c->bus < until) { batch(c, c->wq + x, 1, c->bus, 1, 1, -1, NULL); x++; }
    int64_t m = c->nwq - x;
    memmove(c->wq, c->wq + x, sizeof(Req) * m);
    c->nwq = m; c->pending = 0;
    for (int64_t j = 0; j < m; j++) c->pending += c->wq[j].k;
}

/* the slot of write-queue key `key` in the index (found: wgen == wg and wkey == key) */
static int64_t wq_slot(const Ctl *c, int64_t key) {
    int64_t x = (int64_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 24) & (c->wcap - 1);
    while (c->wgen[x] == c->wg && c->wkey[x] != key) x = (x + 1) & (c->wcap - 1);
    return x;
}

/* index the write queue for `more` requests to come (at most half full) */
static void wq_index(Ctl *c, int64_t more) {
    int64_t want = 2 * (c->nwq + more) + 16;
    if (c->wcap < want) {
        int64_t cap = 64;
        while (cap < want) cap *= 2;
        free(c->wkey); free(c->wval); free(c->wgen);
        c->wkey = malloc(sizeof(int64_t) * cap); c->wval = malloc(sizeof(int64_t) * cap);
        c->wgen = calloc(cap, sizeof(uint64_t));
        c->wcap = cap;
    }
    c->wg++;
    for (int64_t x = 0; x < c->nwq; x++) {
        int64_t key = ((int64_t)c->wq[x].b << 32) | (uint32_t)c->wq[x].row, slot = wq_slot(c, key);
        c->wgen[slot] = c->wg; c->wkey[slot] = key; c->wval[slot] = x;
    }
}

/* ChannelController.read / .write on n packed requests; *bus_before: the bus before */
static double access_packed(Ctl *c, const Req *r, int64_t n, double now, int64_t write,
                            double *bus_before) {
    *bus_before = c->bus;
    if (!write) {
        if (c->pending && c->bus < now) drain_idle(c, now);
        return batch(c, r, n, now, 0, c->read_queue, -1, NULL);
    }
    int64_t room = c->write_queue - c->pending, nbursts = 0;
    wq_index(c, n);
    for (int64_t j = 0; j < n; j++) {
        /* merged with the waiting write to its row (rank and bank group follow the bank) */
        int64_t key = ((int64_t)r[j].b << 32) | (uint32_t)r[j].row, slot = wq_slot(c, key), x;
        if (c->wgen[slot] == c->wg) x = c->wval[slot];
        else {
            if (c->nwq == c->capwq) { c->capwq = c->capwq * 2 + 16; c->wq = realloc(c->wq, sizeof(Req) * c->capwq); }
            x = c->nwq++;
            c->wq[x] = r[j]; c->wq[x].k = 0;
            c->wgen[slot] = c->wg; c->wkey[slot] = key; c->wval[slot] = x;
        }
        c->wq[x].k += r[j].k;
        nbursts += r[j].k;
    }
    c->pending += nbursts;
    if (c->pending < c->write_high) return now;
    int64_t m = 0;
    double end = batch(c, c->wq, c->nwq, now, 1, c->write_queue, c->write_low, &m);
    requeue_from_tmp(c, m);
    return nbursts > room ? end : now;
}

/* the ctypes entry (accelsim/hw/dram_native.py NativeController): ChannelController.read /
 * .write on n requests of 5 int64 each (bank, rank, bank group, row, bursts) */
double ctl_access(Ctl *c, const int64_t *reqs, int64_t n, double now, int64_t write,
                  double *bus_before) {
    if (c->capin < n) { c->capin = 2 * n; c->in = realloc(c->in, sizeof(Req) * c->capin); }
    for (int64_t j = 0; j < n; j++) {
        const int64_t *q = reqs + 5 * j;
        c->in[j].b = (int32_t)q[0]; c->in[j].g = (int32_t)q[2];
        c->in[j].row = (int32_t)q[3]; c->in[j].k = (int32_t)q[4];
    }
    return access_packed(c, c->in, n, now, write, bus_before);
}

#ifdef ACCELSIM_PYEXT
/* ---- the whole DRAM side of a DMA in one call (a CPython extension type) ----------------------
 * `Channels` holds every channel's controller and the address mapping
 * (accelsim/cost/dram_timing.py DramTiming._requests, the reference: the same requests in the
 * same order) and does what accelsim/hw/dram.py Dram._timed does per DMA: each side's
 * requests per channel, each channel's controller, the trace record per channel piece, the
 * transfer's end in accelerator cycles. Built with -DACCELSIM_PYEXT when the Python headers
 * are there; tests/accelsim/hw/test_dram_native.py holds it to the reference. */
enum { F_CH, F_RA, F_BG, F_BA, F_CO, F_RO, NFIELDS };

typedef struct {
    PyObject_HEAD
    int64_t nch, nf, field[NFIELDS], radix[NFIELDS];
    int64_t bb, banks, bank_groups, bpg, rows;
    double ratio;
    Ctl **ctl;
    PyObject *names, *records, *rectype;   /* tuple of str, list, the TraceRecord class */
    PyObject *missing;                     /* missing(xfer, dram_bytes): raises */
    /* scratch of one side: per channel its requests */
    Req **req; int64_t *nreq, *capreq, *bursts;
    /* per (channel, bank): the row (-1: none yet) and request index of its last request in
     * this side */
    int64_t *lrow, *lidx; uint64_t gen;
    /* (channel, bank, row) -> request index, for a row revisited after another of its bank */
    int64_t *hkey, *hval; uint64_t *hgen; int64_t hcap, hused;
    /* the sides mapped so far (DramTiming.split's memo): a pattern -> its requests, channel
     * after channel, in `pool`; per entry its 5 ints, then per channel (offset, count,
     * bursts); `slots` the open-addressing table of entry numbers (-1: empty) */
    int64_t *ment, nment, capment; Req *pool; int64_t npool, cappool;
    int64_t *slots, capslots;
    Req **sreq; int64_t *sn;  /* the side being served: per channel its requests, counts, bursts */
} Channels;

#define MEMO_ENTRIES 65536   /* cleared when full, as DramTiming's memo is at 50,000 */
#define MEMO_REQS (1 << 20)  /* requests kept at most (40 MB) */

static int64_t floordiv64(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int grow_hash(Channels *s, int64_t want) {
    if (want * 2 <= s->hcap) return 0;
    int64_t cap = s->hcap ? s->hcap : 64;
    while (cap < want * 2) cap *= 2;
    int64_t *ok = s->hkey, *ov = s->hval; uint64_t *og = s->hgen; int64_t ocap = s->hcap;
    s->hkey = malloc(sizeof(int64_t) * cap); s->hval = malloc(sizeof(int64_t) * cap);
    s->hgen = calloc(cap, sizeof(uint64_t));
    if (!s->hkey || !s->hval || !s->hgen) return -1;
    s->hcap = cap;
    for (int64_t i = 0; i < ocap; i++)
        if (og[i] == s->gen) {
            uint64_t h = (uint64_t)ok[i] * 0x9E3779B97F4A7C15ULL;
            int64_t x = (int64_t)(h >> 20) & (cap - 1);
            while (s->hgen[x] == s->gen) x = (x + 1) & (cap - 1);
            s->hgen[x] = s->gen; s->hkey[x] = ok[i]; s->hval[x] = ov[i];
        }
    free(ok); free(ov); free(og);
    return 0;
}

/* the slot of `key` (its value >= 0) or where it goes (value -1) */
static int64_t hash_find(Channels *s, int64_t key, int64_t *val) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
    int64_t x = (int64_t)(h >> 20) & (s->hcap - 1);
    while (s->hgen[x] == s->gen) {
        if (s->hkey[x] == key) { *val = s->hval[x]; return x; }
        x = (x + 1) & (s->hcap - 1);
    }
    *val = -1;
    return x;
}

/* one DMA side (a Pattern) as requests per channel into s->req / s->nreq / s->bursts; -1: no
 * memory, -2: a request of 2^31 bursts (more than a packed request holds) */
static int map_side(Channels *s, int64_t base, int64_t chunk, int64_t stride, int64_t n,
                    int64_t last) {
    for (int64_t c = 0; c < s->nch; c++) { s->nreq[c] = 0; s->bursts[c] = 0; }
    if (n <= 0 || chunk <= 0) return 0;
    s->gen++;
    s->hused = 0;
    if (grow_hash(s, 64) < 0) return -1;
    int64_t ncb = s->nch * s->banks;
    for (int64_t x = 0; x < ncb; x++) s->lrow[x] = -1;
    int64_t bb = s->bb, nf = s->nf, d[NFIELDS], pos[NFIELDS], w[NFIELDS], wrap[NFIELDS];
    for (int64_t f = 0; f < nf; f++) pos[s->field[f]] = f;
    /* each field's weight in the (channel, bank) index ch * banks + bank */
    for (int64_t f = 0; f < nf; f++) {
        int64_t code = s->field[f];
        w[f] = code == F_CH ? s->banks : code == F_RA ? s->bank_groups * s->bpg
             : code == F_BG ? s->bpg : code == F_BA ? 1 : 0;
        wrap[f] = w[f] * (s->radix[f] - 1);
    }
    int64_t pch = pos[F_CH], pro = pos[F_RO];
    /* bursts as shifts when the burst size is a power of two (it is for every technology) */
    int sh = -1;
    if ((bb & (bb - 1)) == 0) { sh = 0; while (((int64_t)1 << sh) < bb) sh++; }
    /* a chunk's first burst's digits from the previous chunk's, plus the difference of their
     * burst indices (its digits kept for the next chunk with the same difference: no
     * division per chunk on a regular stride) */
    int64_t d0[NFIELDS], dd[NFIELDS], prev = 0, delta = -1;
    for (int64_t j = 0; j < n; j++) {
        int64_t start = base + j * stride;
        int64_t end = start + (j == n - 1 ? last : chunk);
        int64_t first = sh >= 0 ? start >> sh : floordiv64(start, bb);
        int64_t cnt = (sh >= 0 ? (end - 1) >> sh : floordiv64(end - 1, bb)) - first + 1;
        if (j == 0 || first - prev < 0) {
            int64_t x = first;
            for (int64_t f = 0; f < nf; f++) {
                int64_t q = floordiv64(x, s->radix[f]);
                d0[f] = x - q * s->radix[f];
                x = q;
            }
        } else if (first != prev) {
            if (first - prev != delta) {
                delta = first - prev;
                int64_t x = delta;
                for (int64_t f = 0; f < nf; f++) {
                    int64_t q = x / s->radix[f];
                    dd[f] = x - q * s->radix[f];
                    x = q;
                }
            }
            int64_t carry = 0;  /* mixed-radix addition; the top's carry dropped (wraps) */
            for (int64_t f = 0; f < nf; f++) {
                int64_t v = d0[f] + dd[f] + carry;
                carry = v >= s->radix[f];
                d0[f] = carry ? v - s->radix[f] : v;
            }
        }
        prev = first;
        if (cnt <= 0) continue;
        int64_t cb = 0;
        for (int64_t f = 0; f < nf; f++) { d[f] = d0[f]; cb += w[f] * d[f]; }
        for (int64_t t = 0; t < cnt; t++) {
            if (t) {  /* the next burst: the mixed-radix digits plus one (the top wraps) */
                for (int64_t f = 0; f < nf; f++) {
                    if (++d[f] < s->radix[f]) { cb += w[f]; break; }
                    d[f] = 0; cb -= wrap[f];
                }
            }
            int64_t ch = d[pch], ro = d[pro];
            s->bursts[ch]++;
            if (s->lrow[cb] == ro) {
                if (++s->req[ch][s->lidx[cb]].k == INT32_MAX) return -2;
                continue;
            }
            int64_t b = cb - ch * s->banks, g = b / s->bpg;
            int64_t key = cb * s->rows + ro, idx;
            int64_t slot = hash_find(s, key, &idx);
            if (idx < 0) {
                if (s->nreq[ch] == s->capreq[ch]) {
                    int64_t cap = s->capreq[ch] * 2 + 16;
                    Req *nr = realloc(s->req[ch], sizeof(Req) * cap);
                    if (!nr) return -1;
                    s->req[ch] = nr; s->capreq[ch] = cap;
                }
                idx = s->nreq[ch]++;
                Req *q = s->req[ch] + idx;
                q->b = (int32_t)b; q->g = (int32_t)g; q->row = (int32_t)ro; q->k = 0;
                s->hgen[slot] = s->gen; s->hkey[slot] = key; s->hval[slot] = idx;
                if (++s->hused * 2 > s->hcap && grow_hash(s, s->hused) < 0) return -1;
            }
            if (++s->req[ch][idx].k == INT32_MAX) return -2;
            s->lrow[cb] = ro; s->lidx[cb] = idx;
        }
    }
    return 0;
}

static uint64_t pattern_hash(const int64_t v[5]) {
    uint64_t h = 0x243F6A8885A308D3ULL;
    for (int i = 0; i < 5; i++) { h ^= (uint64_t)v[i]; h *= 0x9E3779B97F4A7C15ULL; h ^= h >> 29; }
    return h;
}

static void memo_clear(Channels *s) {
    s->nment = 0; s->npool = 0;
    for (int64_t x = 0; x < s->capslots; x++) s->slots[x] = -1;
}

/* room for one more entry of `reqs` requests (the table at most half full) */
static int memo_room(Channels *s, int64_t reqs) {
    int64_t stride = 5 + 3 * s->nch;
    if (s->nment == s->capment) {
        int64_t cap = s->capment * 2;
        int64_t *m = realloc(s->ment, sizeof(int64_t) * cap * stride);
        if (!m) return -1;
        s->ment = m; s->capment = cap;
    }
    if (s->npool + reqs > s->cappool) {
        int64_t cap = s->cappool;
        while (cap < s->npool + reqs) cap *= 2;
        Req *q = realloc(s->pool, sizeof(Req) * cap);
        if (!q) return -1;
        s->pool = q; s->cappool = cap;
    }
    if ((s->nment + 1) * 2 > s->capslots) {
        int64_t cap = s->capslots * 2, *t = malloc(sizeof(int64_t) * cap);
        if (!t) return -1;
        free(s->slots);
        s->slots = t; s->capslots = cap;
        for (int64_t x = 0; x < cap; x++) t[x] = -1;
        for (int64_t e = 0; e < s->nment; e++) {
            int64_t x = (int64_t)(pattern_hash(s->ment + e * stride) >> 16) & (cap - 1);
            while (t[x] >= 0) x = (x + 1) & (cap - 1);
            t[x] = e;
        }
    }
    return 0;
}

/* the memo's entry of pattern v (its number), or -1 with *slot where it would go */
static int64_t memo_find(Channels *s, const int64_t v[5], int64_t *slot) {
    int64_t stride = 5 + 3 * s->nch, mask = s->capslots - 1;
    int64_t x = (int64_t)(pattern_hash(v) >> 16) & mask;
    for (;;) {
        int64_t e = s->slots[x];
        if (e < 0) { *slot = x; return -1; }
        const int64_t *k = s->ment + e * stride;
        if (k[0] == v[0] && k[1] == v[1] && k[2] == v[2] && k[3] == v[3] && k[4] == v[4]) return e;
        x = (x + 1) & mask;
    }
}

/* pattern v's requests per channel: (*reqs)[c], nreq[c], bursts[c]; from the memo, or mapped
 * and kept */
static int side_requests(Channels *s, const int64_t v[5], Req **reqs, int64_t *nreq,
                         int64_t *bursts) {
    int64_t stride = 5 + 3 * s->nch, slot, e = memo_find(s, v, &slot);
    if (e < 0) {
        int err = map_side(s, v[0], v[1], v[2], v[3], v[4]);
        if (err < 0) return err;
        int64_t total = 0;
        for (int64_t c = 0; c < s->nch; c++) total += s->nreq[c];
        if (total > MEMO_REQS) {  /* too big to keep: served from the scratch */
            for (int64_t c = 0; c < s->nch; c++) {
                reqs[c] = s->req[c]; nreq[c] = s->nreq[c]; bursts[c] = s->bursts[c];
            }
            return 0;
        }
        if (s->nment == MEMO_ENTRIES || s->npool + total > MEMO_REQS) memo_clear(s);
        if (memo_room(s, total) < 0) return -1;
        memo_find(s, v, &slot);
        e = s->nment++;
        int64_t *k = s->ment + e * stride;
        for (int i = 0; i < 5; i++) k[i] = v[i];
        for (int64_t c = 0; c < s->nch; c++) {
            k[5 + 3 * c] = s->npool; k[6 + 3 * c] = s->nreq[c]; k[7 + 3 * c] = s->bursts[c];
            memcpy(s->pool + s->npool, s->req[c], sizeof(Req) * s->nreq[c]);
            s->npool += s->nreq[c];
        }
        s->slots[slot] = e;
    }
    const int64_t *k = s->ment + e * stride;
    for (int64_t c = 0; c < s->nch; c++) {
        reqs[c] = s->pool + k[5 + 3 * c]; nreq[c] = k[6 + 3 * c]; bursts[c] = k[7 + 3 * c];
    }
    return 0;
}

static int side_requests_or_error(Channels *s, const int64_t v[5], Req **reqs, int64_t *nreq,
                                  int64_t *bursts) {
    int err = side_requests(s, v, reqs, nreq, bursts);
    if (err == -2)
        PyErr_SetString(PyExc_OverflowError, "a DMA side with 2^31 bursts to one DRAM row");
    else if (err < 0)
        PyErr_NoMemory();
    return err;
}

static void Channels_dealloc(Channels *s) {
    if (s->ctl) for (int64_t c = 0; c < s->nch; c++) if (s->ctl[c]) ctl_free(s->ctl[c]);
    if (s->req) for (int64_t c = 0; c < s->nch; c++) free(s->req[c]);
    free(s->ctl); free(s->req); free(s->nreq); free(s->capreq); free(s->bursts);
    free(s->lrow); free(s->lidx); free(s->hkey); free(s->hval); free(s->hgen);
    free(s->ment); free(s->pool); free(s->slots); free(s->sreq);
    Py_XDECREF(s->names); Py_XDECREF(s->records); Py_XDECREF(s->rectype); Py_XDECREF(s->missing);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* Channels(ints[8], doubles[17], fields (codes F_*, least significant first), radices,
 *          (channels, burst_bytes, bank_groups, banks_per_group, rows), ratio, names,
 *          records, TraceRecord, missing) */
static int Channels_init(Channels *s, PyObject *args, PyObject *kw) {
    (void)kw;
    PyObject *ints, *dbls, *fields, *radices, *org, *names, *records, *rectype, *missing;
    double ratio;
    if (s->ctl) { PyErr_SetString(PyExc_TypeError, "Channels: initialized once"); return -1; }
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!dO!O!O!O", &PyTuple_Type, &ints, &PyTuple_Type, &dbls,
                          &PyTuple_Type, &fields, &PyTuple_Type, &radices, &PyTuple_Type, &org,
                          &ratio, &PyTuple_Type, &names, &PyList_Type, &records,
                          &PyType_Type, &rectype, &missing))
        return -1;
    Py_INCREF(names); Py_INCREF(records); Py_INCREF(rectype); Py_INCREF(missing);
    s->names = names; s->records = records; s->rectype = rectype; s->missing = missing;
    if (!PyType_IsSubtype((PyTypeObject *)rectype, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "Channels: the record type is a tuple type");
        return -1;
    }
    if (PyTuple_GET_SIZE(ints) != 8 || PyTuple_GET_SIZE(dbls) != 17 || PyTuple_GET_SIZE(org) != 5
        || PyTuple_GET_SIZE(fields) != NFIELDS || PyTuple_GET_SIZE(radices) != NFIELDS) {
        PyErr_SetString(PyExc_ValueError, "Channels: wrong parameter counts");
        return -1;
    }
    int64_t ip[8]; double dp[17];
    for (int i = 0; i < 8; i++) ip[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(ints, i));
    for (int i = 0; i < 17; i++) dp[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(dbls, i));
    s->nf = NFIELDS;
    for (int i = 0; i < NFIELDS; i++) {
        s->field[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(fields, i));
        s->radix[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(radices, i));
    }
    s->nch = PyLong_AsLongLong(PyTuple_GET_ITEM(org, 0));
    s->bb = PyLong_AsLongLong(PyTuple_GET_ITEM(org, 1));
    s->bank_groups = PyLong_AsLongLong(PyTuple_GET_ITEM(org, 2));
    s->bpg = PyLong_AsLongLong(PyTuple_GET_ITEM(org, 3));
    s->rows = PyLong_AsLongLong(PyTuple_GET_ITEM(org, 4));
    s->banks = ip[0] * s->bank_groups * s->bpg;
    s->ratio = ratio;
    if (PyErr_Occurred()) return -1;
    if (PyTuple_GET_SIZE(s->names) != s->nch || s->nch <= 0) {
        PyErr_SetString(PyExc_ValueError, "Channels: one name per channel");
        return -1;
    }
    int64_t ncb = s->nch * s->banks;
    s->ctl = calloc(s->nch, sizeof(Ctl *)); s->req = calloc(s->nch, sizeof(Req *));
    s->nreq = calloc(s->nch, sizeof(int64_t)); s->capreq = calloc(s->nch, sizeof(int64_t));
    s->bursts = calloc(s->nch, sizeof(int64_t));
    s->lrow = calloc(ncb, sizeof(int64_t)); s->lidx = calloc(ncb, sizeof(int64_t));
    if (!s->ctl || !s->req || !s->nreq || !s->capreq || !s->bursts || !s->lrow || !s->lidx) { PyErr_NoMemory(); return -1; }
    for (int64_t c = 0; c < s->nch; c++) s->ctl[c] = ctl_new(ip, dp);
    s->capslots = 256; s->capment = 64; s->cappool = 4096;
    s->ment = malloc(sizeof(int64_t) * s->capment * (5 + 3 * s->nch));
    s->pool = malloc(sizeof(Req) * s->cappool);
    s->slots = malloc(sizeof(int64_t) * s->capslots);
    s->sreq = malloc(sizeof(Req *) * s->nch);
    s->sn = malloc(sizeof(int64_t) * 2 * s->nch);
    if (!s->ment || !s->pool || !s->slots || !s->sreq || !s->sn) { PyErr_NoMemory(); return -1; }
    memo_clear(s);
    return 0;
}

static int side_pattern(PyObject *p, int64_t v[5]) {
    if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) != 5) {
        PyErr_SetString(PyExc_TypeError, "a Pattern (5 ints) expected");
        return -1;
    }
    for (int i = 0; i < 5; i++) v[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(p, i));
    return PyErr_Occurred() ? -1 : 0;
}

static int64_t to_cycles(double clocks, double ratio) {  /* as Dram._timed rounds up */
    double x = clocks / ratio;
    int64_t t = (int64_t)x;
    if ((double)t < x - 1e-9) t += 1;
    return t;
}

/* Dram._timed's work on `sides` ((is_write, Pattern), ...) */
static PyObject *serve(Channels *s, int64_t ready, PyObject *sides, PyObject *kind,
                       PyObject *label, PyObject *loc) {
    double ratio = s->ratio, now = (double)ready * ratio;
    int64_t end = ready;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(sides); i++) {
        PyObject *side = PyTuple_GET_ITEM(sides, i);
        if (!PyTuple_Check(side) || PyTuple_GET_SIZE(side) != 2) {
            PyErr_SetString(PyExc_TypeError, "a side is (is_write, Pattern)");
            return NULL;
        }
        int write = PyObject_IsTrue(PyTuple_GET_ITEM(side, 0));
        int64_t p[5];
        if (write < 0 || side_pattern(PyTuple_GET_ITEM(side, 1), p) < 0) return NULL;
        Req **rq = s->sreq; int64_t *nrq = s->sn, *nbu = s->sn + s->nch;
        if (side_requests_or_error(s, p, rq, nrq, nbu) < 0) return NULL;
        double side_end = now;
        for (int64_t c = 0; c < s->nch; c++) {
            if (!nbu[c]) continue;
            double bus;
            double e = access_packed(s->ctl[c], rq[c], nrq[c], now, write, &bus);
            int64_t t0 = to_cycles(bus > now ? bus : now, ratio), t1 = to_cycles(e, ratio);
            if (t1 < t0) t1 = t0;
            PyObject *name = PyTuple_GET_ITEM(s->names, c);
            PyObject *a = PyLong_FromLongLong(t0), *b = PyLong_FromLongLong(t1);
            PyObject *nb = PyLong_FromLongLong(nbu[c] * s->bb);
            PyObject *rec = (a && b && nb) ? ((PyTypeObject *)s->rectype)->tp_alloc(
                (PyTypeObject *)s->rectype, 7) : NULL;
            if (!rec) { Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(nb); return NULL; }
            Py_INCREF(name); Py_INCREF(kind); Py_INCREF(label); Py_INCREF(loc);
            PyTuple_SET_ITEM(rec, 0, name); PyTuple_SET_ITEM(rec, 1, a);
            PyTuple_SET_ITEM(rec, 2, b); PyTuple_SET_ITEM(rec, 3, kind);
            PyTuple_SET_ITEM(rec, 4, nb); PyTuple_SET_ITEM(rec, 5, label);
            PyTuple_SET_ITEM(rec, 6, loc);
            int err = PyList_Append(s->records, rec);
            Py_DECREF(rec);
            if (err < 0) return NULL;
            if (e > side_end) side_end = e;
            if (t1 > end) end = t1;
        }
        now = side_end;
    }
    return PyLong_FromLongLong(end);
}

static PyObject *str_dram_patterns, *str_desc, *str_label;

/* reserve(ready, dram_bytes, hold, xfer) -> the end (accelerator cycles): Dram._timed on
 * xfer.dram_patterns() ((is_write, Pattern), ...), a TraceRecord per channel piece appended
 * to records; no sides: missing(xfer, dram_bytes) raises */
static PyObject *Channels_reserve(Channels *s, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "reserve(ready, dram_bytes, hold, xfer)");
        return NULL;
    }
    int64_t ready = PyLong_AsLongLong(args[0]);
    if (ready == -1 && PyErr_Occurred()) return NULL;
    PyObject *xfer = args[3];
    PyObject *sides = PyObject_CallMethodNoArgs(xfer, str_dram_patterns);
    if (!sides) return NULL;
    if (!PyTuple_Check(sides) || PyTuple_GET_SIZE(sides) == 0) {
        Py_DECREF(sides);
        PyObject *r = PyObject_CallFunctionObjArgs(s->missing, xfer, args[1], NULL);
        if (r) { Py_DECREF(r); PyErr_SetString(PyExc_RuntimeError, "missing() returned"); }
        return NULL;
    }
    PyObject *desc = PyObject_GetAttr(xfer, str_desc);
    PyObject *label = desc ? PyObject_GetAttr(xfer, str_label) : NULL;
    PyObject *out = NULL;
    if (label && PyTuple_Check(desc) && PyTuple_GET_SIZE(desc) >= 6)
        out = serve(s, ready, sides, PyTuple_GET_ITEM(desc, 4), label, PyTuple_GET_ITEM(desc, 5));
    else if (label)
        PyErr_SetString(PyExc_TypeError, "a transfer's desc is a tuple of 6");
    Py_DECREF(sides); Py_XDECREF(desc); Py_XDECREF(label);
    return out;
}

/* requests(base, chunk, stride, nchunks, last): DramTiming.split's value, from this mapping
 * (through the memo, as reserve) */
static PyObject *Channels_requests(Channels *s, PyObject *const *args, Py_ssize_t nargs) {
    int64_t v[5];
    if (nargs != 5) { PyErr_SetString(PyExc_TypeError, "requests(base, chunk, stride, nchunks, last)"); return NULL; }
    for (int i = 0; i < 5; i++) v[i] = PyLong_AsLongLong(args[i]);
    if (PyErr_Occurred()) return NULL;
    Req **rq = s->sreq; int64_t *nrq = s->sn, *nbu = s->sn + s->nch;
    if (side_requests_or_error(s, v, rq, nrq, nbu) < 0) return NULL;
    PyObject *out = PyTuple_New(s->nch);
    if (!out) return NULL;
    for (int64_t c = 0; c < s->nch; c++) {
        PyObject *rs = PyTuple_New(nrq[c]);
        if (!rs) { Py_DECREF(out); return NULL; }
        for (int64_t j = 0; j < nrq[c]; j++) {
            Req *q = rq[c] + j;
            PyTuple_SET_ITEM(rs, j, Py_BuildValue("(LLLLL)", (long long)q->b,
                                                  (long long)(q->g / s->bank_groups),
                                                  (long long)q->g, (long long)q->row,
                                                  (long long)q->k));
        }
        PyTuple_SET_ITEM(out, c, Py_BuildValue("(NL)", rs, (long long)(nbu[c] * s->bb)));
    }
    return out;
}

/* memo(): (entries, requests) kept in the memo */
static PyObject *Channels_memo(Channels *s, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("(LL)", (long long)s->nment, (long long)s->npool);
}

/* stats(channel): ctl_stats's eight values */
static PyObject *Channels_stats(Channels *s, PyObject *arg) {
    int64_t c = PyLong_AsLongLong(arg);
    if (c == -1 && PyErr_Occurred()) return NULL;
    if (c < 0 || c >= s->nch) { PyErr_SetString(PyExc_IndexError, "no such channel"); return NULL; }
    double out[8];
    ctl_stats(s->ctl[c], out);
    return Py_BuildValue("(dddddddd)", out[0], out[1], out[2], out[3], out[4], out[5], out[6],
                         out[7]);
}

static PyMethodDef Channels_methods[] = {
    {"reserve", (PyCFunction)(void (*)(void))Channels_reserve, METH_FASTCALL, NULL},
    {"requests", (PyCFunction)(void (*)(void))Channels_requests, METH_FASTCALL, NULL},
    {"stats", (PyCFunction)Channels_stats, METH_O, NULL},
    {"memo", (PyCFunction)Channels_memo, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ChannelsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accelsim_dram_kernel.Channels",
    .tp_basicsize = sizeof(Channels),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Channels_init,
    .tp_dealloc = (destructor)Channels_dealloc,
    .tp_methods = Channels_methods,
};

static struct PyModuleDef kernel_module = {PyModuleDef_HEAD_INIT, "accelsim_dram_kernel", NULL,
                                           -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_accelsim_dram_kernel(void) {
    if (PyType_Ready(&ChannelsType) < 0) return NULL;
    str_dram_patterns = PyUnicode_InternFromString("dram_patterns");
    str_desc = PyUnicode_InternFromString("desc");
    str_label = PyUnicode_InternFromString("label");
    if (!str_dram_patterns || !str_desc || !str_label) return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "MEMO_ENTRIES", MEMO_ENTRIES) < 0) { Py_DECREF(m); return NULL; }
    Py_INCREF(&ChannelsType);
    if (PyModule_AddObject(m, "Channels", (PyObject *)&ChannelsType) < 0) {
        Py_DECREF(&ChannelsType); Py_DECREF(m); return NULL;
    }
    return m;
}
#endif
