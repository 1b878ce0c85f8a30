/* The DRAM timing model's channel controller in C: the fast path of
 * accelsim/hw/dram_controller.py's ChannelController (the reference; its docstring is the
 * policy). Same state, same FR-FCFS choice, same float arithmetic in the same order, so the
 * results are bit-identical (tests/accelsim/hw/test_dram_native.py compares the two).
 * The FR-FCFS choice keeps one candidate per bank (the least (readiness, index) of its first
 * row hit and first miss inside the window, which share their bank's readiness): the same
 * request the reference's least key picks. Built by accelsim/hw/dram_native.py. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NEVER (-1.0e18)

typedef struct { int64_t b, rank, g, row, k; } Req;

typedef struct {
    int64_t nb, ng, ranks, per_rank, bpg;
    double trp, trrd_l, trrd_s, tfaw, trcd, trc, tras, tb, tccd_l;
    double tcl, tcwl, twr, twtr, trtw, trtp, trefi, trfc;
    int64_t open_page, read_queue, write_queue, write_high, write_low;
    int64_t *open_row; double *act_ok, *cas_ok, *pre_ok, *bg_next, *last_act_bg;
    double *last_act, *faw; int64_t *nfaw; double *next_ref;
    double bus, last_read, last_wdata;
    Req *wq; int64_t nwq, capwq, pending;
    int64_t hits, misses, conflicts, refreshes;
    /* scratch of a batch */
    int64_t cap; int64_t *served, *pstart, *pcount, *plist, *hit, *miss; double *ck; int64_t *ci;
    Req *tmp; int64_t captmp;
} Ctl;

Ctl *ctl_new(const int64_t *ip, const double *dp) {
    Ctl *c = calloc(1, sizeof(Ctl));
    c->ranks = ip[0]; c->bpg = ip[2]; c->ng = ip[0] * ip[1]; c->nb = c->ng * ip[2];
    c->per_rank = ip[1] * ip[2];
    c->open_page = ip[3]; c->read_queue = ip[4]; c->write_queue = ip[5];
    c->write_high = ip[6]; c->write_low = ip[7];
    c->trp = dp[0]; c->trrd_l = dp[1]; c->trrd_s = dp[2]; c->tfaw = dp[3]; c->trcd = dp[4];
    c->trc = dp[5]; c->tras = dp[6]; c->tb = dp[7]; c->tccd_l = dp[8]; c->tcl = dp[9];
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
    return c;
}

void ctl_free(Ctl *c) {
    free(c->open_row); free(c->act_ok); free(c->cas_ok); free(c->pre_ok); free(c->bg_next);
    free(c->last_act_bg); free(c->last_act); free(c->faw); free(c->nfaw); free(c->next_ref);
    free(c->wq); free(c->served); free(c->plist); free(c->pstart); free(c->pcount);
    free(c->hit); free(c->miss); free(c->ck); free(c->ci); free(c->tmp); free(c);
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
    c->served = realloc(c->served, sizeof(int64_t) * c->cap);
    c->plist = realloc(c->plist, sizeof(int64_t) * c->cap);
}

/* bank b's first waiting hit and miss with index < wend */
static void hit_miss(Ctl *c, const Req *r, int64_t b, int64_t wend) {
    int64_t o = c->open_row[b], h = -1, m = -1;
    int64_t *lst = c->plist + c->pstart[b], cnt = c->pcount[b];
    for (int64_t x = 0; x < cnt; x++) {
        int64_t j = lst[x];
        if (j >= wend) break;
        if (c->served[j]) continue;
        if (r[j].row == o) { if (h < 0) { h = j; if (m >= 0) break; } }
        else if (m < 0) { m = j; if (h >= 0) break; }
    }
    c->hit[b] = h; c->miss[b] = m;
}

static void candidate(Ctl *c, int64_t b, double now) {
    double bk = INFINITY; int64_t bi = INT64_MAX;
    int64_t g = b / c->bpg;
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
        if (k < bk || (k == bk && c->miss[b] < bi)) { bk = k; bi = c->miss[b]; }
    }
    c->ck[b] = bk; c->ci[b] = bi;
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
    memset(c->served, 0, sizeof(int64_t) * n);
    memset(c->pcount, 0, sizeof(int64_t) * nb);
    for (int64_t j = 0; j < n; j++) c->pcount[r[j].b]++;
    int64_t s = 0;
    for (int64_t b = 0; b < nb; b++) { c->pstart[b] = s; s += c->pcount[b]; c->pcount[b] = 0; }
    for (int64_t j = 0; j < n; j++) { int64_t b = r[j].b; c->plist[c->pstart[b] + c->pcount[b]++] = j; }
    int64_t wend = n < window ? n : window;
    for (int64_t b = 0; b < nb; b++) { hit_miss(c, r, b, wend); candidate(c, b, now); }
    int64_t waiting = n;
    while (waiting && (stop < 0 || left > stop)) {
        int64_t best = 0;
        for (int64_t b = 1; b < nb; b++)
            if (c->ck[b] < c->ck[best] || (c->ck[b] == c->ck[best] && c->ci[b] < c->ci[best])) best = b;
        int64_t i = c->ci[best];
        const Req *q = r + i;
        int64_t b = q->b, rank = q->rank, g = q->g, row = q->row, k = q->k;
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
        bus = (bus > first ? bus : first) + (double)(k * (int64_t)c->tb);
        double last = first + (double)((k - 1) * (int64_t)c->tccd_l);
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
        } else {
            hit_miss(c, r, b, wend);
            if (entered >= 0 && entered != b) hit_miss(c, r, entered, wend);
            for (int64_t bb = g * c->bpg; bb < (g + 1) * c->bpg; bb++) candidate(c, bb, now);
            if (entered >= 0 && entered / c->bpg != g) candidate(c, entered, now);
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

/* ChannelController.read / .write on n requests (5 int64 each); *bus_before: the bus before */
double ctl_access(Ctl *c, const int64_t *reqs, int64_t n, double now, int64_t write,
                  double *bus_before) {
    const Req *r = (const Req *)reqs;
    *bus_before = c->bus;
    if (!write) {
        if (c->pending && c->bus < now) drain_idle(c, now);
        return batch(c, r, n, now, 0, c->read_queue, -1, NULL);
    }
    int64_t room = c->write_queue - c->pending, nbursts = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t x = 0;
        for (; x < c->nwq; x++)
            if (c->wq[x].b == r[j].b && c->wq[x].rank == r[j].rank && c->wq[x].g == r[j].g
                && c->wq[x].row == r[j].row) break;
        if (x == c->nwq) {
            if (c->nwq == c->capwq) { c->capwq = c->capwq * 2 + 16; c->wq = realloc(c->wq, sizeof(Req) * c->capwq); }
            c->wq[c->nwq] = r[j]; c->wq[c->nwq].k = 0; c->nwq++;
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
