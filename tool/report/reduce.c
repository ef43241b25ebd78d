/* Binomial-tree merge of row sets: pack, send to the parent, unpack and merge. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "tool/base/base.h"

#define TAG_ROWS 7301

/* Message layout per row: kind (u32), strlen a (u32), strlen b + 1 or 0 for none (u32),
 * the bytes of a and b, then struct prof_nums. */
static void pack(const struct rowset *rs, struct strbuf *out)
{
    for (size_t i = 0; i < rs->n; i++) {
        const struct prof_row *r = &rs->rows[i];
        uint32_t head[3] = {(uint32_t)r->kind, (uint32_t)strlen(r->a),
                            r->b ? (uint32_t)strlen(r->b) + 1 : 0};
        sb_add(out, head, sizeof head);
        sb_add(out, r->a, head[1]);
        if (r->b)
            sb_add(out, r->b, head[2] - 1);
        sb_add(out, &r->n, sizeof r->n);
    }
}

static int unpack_merge(struct rowset *rs, const char *buf, size_t len)
{
    size_t off = 0;
    struct strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    int rc = 0;
    while (off < len) {
        uint32_t head[3];
        struct prof_nums n;
        if (len - off < sizeof head) {
            rc = -1;
            break;
        }
        memcpy(head, buf + off, sizeof head);
        off += sizeof head;
        size_t blen = head[2] ? head[2] - 1 : 0;
        if (len - off < (size_t)head[1] + blen + sizeof n) {
            rc = -1;
            break;
        }
        a.len = b.len = 0;
        sb_add(&a, buf + off, head[1]);
        sb_add(&a, "", 0);
        off += head[1];
        sb_add(&b, buf + off, blen);
        sb_add(&b, "", 0);
        off += blen;
        memcpy(&n, buf + off, sizeof n);
        off += sizeof n;
        struct prof_row *r = rowset_get(rs, (int)head[0], a.data, head[2] ? b.data : NULL);
        if (!r) {
            rc = -1;
            break;
        }
        prof_nums_merge(&r->n, &n);
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

static int receive_from(struct rowset *rs, int child, MPI_Comm comm)
{
    MPI_Status st;
    MPI_Count n = 0;
    yw_probe(child, TAG_ROWS, comm, &st);
    own_Get_elements_x(&st, MPI_BYTE, &n);
    char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf) {
        /* Still receive, so the child is not left hanging; its rows are lost. */
        char dummy;
        MPI_Request r;
        own_Irecv(&dummy, 0, MPI_BYTE, child, TAG_ROWS, comm, &r);
        yw_wait(&r);
        return -1;
    }
    MPI_Request r;
    own_Irecv(buf, (int)n, MPI_BYTE, child, TAG_ROWS, comm, &r);
    yw_wait(&r);
    int rc = unpack_merge(rs, buf, (size_t)n);
    free(buf);
    return rc;
}

int red_tree(struct rowset *rs, MPI_Comm comm)
{
    int rank, size, rc = 0;
    own_Comm_rank(comm, &rank);
    own_Comm_size(comm, &size);
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            struct strbuf out;
            sb_init(&out);
            pack(rs, &out);
            if (out.failed) {
                tardy_warn("out of memory packing the profile; this rank's subtree is missing "
                           "from the report");
                out.len = 0;
                rc = -1;
            }
            MPI_Request r;
            own_Isend(out.data ? out.data : "", (int)out.len, MPI_BYTE, rank - step, TAG_ROWS,
                       comm, &r);
            yw_wait(&r);
            sb_free(&out);
            break;
        }
        if (rank + step < size && receive_from(rs, rank + step, comm) < 0) {
            tardy_warn("could not merge the profile of rank %d's subtree", rank + step);
            rc = -1;
        }
    }
    return rc;
}

int red_alone(MPI_Comm comm)
{
    int size;
    return own_Comm_size(comm, &size) == MPI_SUCCESS && size == 1;
}

void red_hist_start(struct red_hist *h, double v, MPI_Comm comm)
{
    h->v = v;
    h->comm = comm;
    h->ends[0] = -v;
    h->ends[1] = v;
    h->all[0] = -v;
    h->all[1] = v;
    h->r = MPI_REQUEST_NULL;
    if (!red_alone(comm))
        own_Iallreduce(h->ends, h->all, 2, MPI_DOUBLE, MPI_MAX, comm, &h->r);
}

void red_hist_finish(struct red_hist *h, double *lo, double *hi, uint64_t bins[RANK_HIST_BINS])
{
    yw_wait(&h->r);
    *lo = -h->all[0];
    *hi = h->all[1];
    uint64_t mine[RANK_HIST_BINS] = {0};
    double width = (*hi - *lo) / RANK_HIST_BINS;
    int b = width > 0 ? (int)((h->v - *lo) / width) : 0;
    mine[b < RANK_HIST_BINS ? b : RANK_HIST_BINS - 1] = 1;
    if (red_alone(h->comm)) {
        memcpy(bins, mine, sizeof mine);
        return;
    }
    MPI_Request r;
    own_Ireduce(mine, bins, RANK_HIST_BINS, MPI_UINT64_T, MPI_SUM, 0, h->comm, &r);
    yw_wait(&r);
}
