/*
 * dpx: Tandem's DPDK shim. See dpx.h for the contract and why it is shaped this way.
 *
 * Built into libtandem-dpx.so together with a static DPDK (src/main/c/build.sh); only the dpx_* symbols are exported.
 */
#include "dpx.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define DPX_MAX_ARGS 64

/* Per-port state the ethdev layer does not keep for us. Indexed by ethdev port id. */
struct dpx_port {
    int used;
    char vdev[RTE_DEV_NAME_MAX_LEN];
    struct rte_mempool *pool;
    /* Frames taken from the rx queue that did not fit the caller's buffer yet: delivered first by the next dpx_rx.
     * rte_eth_rx_burst cannot give frames back, so without the stash a too-small buffer would lose them. */
    struct rte_mbuf *stash[DPX_BURST];
    uint16_t stash_head;
    uint16_t stash_count;
    /* A server port's listening socket, which memif leaves behind when the port closes (see retire_listener):
     * its descriptor and its inode; -1 when the port has none we know of. */
    int listener_fd;
    ino_t listener_ino;
};

static struct dpx_port ports[RTE_MAX_ETHPORTS];
/* Serialises port open/close: the slot table and hotplug must not interleave (DS thread and I/O threads). */
static pthread_mutex_t ports_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t eal_lock = PTHREAD_MUTEX_INITIALIZER;
/* 0: never tried; 1: up; < 0: -errno of the failed attempt. rte_eal_init runs once per process, so this is the
 * process's only record of whether the EAL that "already called initialization" is usable. */
static int eal_state;
/* The arguments of the successful init, reported to every later bundle generation. Never freed: EAL may keep
 * pointers into argv. */
static char *eal_args_text;
static int next_id;

int dpx_abi(void)
{
    return DPX_ABI;
}

const char *dpx_strerror(int err)
{
    return rte_strerror(err);
}

int dpx_next_id(void)
{
    return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

const char *dpx_eal_args(void)
{
    pthread_mutex_lock(&eal_lock);
    const char *a = eal_state == 1 ? eal_args_text : NULL;
    pthread_mutex_unlock(&eal_lock);
    return a;
}

int dpx_eal_init(const char *args)
{
    pthread_mutex_lock(&eal_lock);
    if (eal_state == 1) {
        /* Answered here rather than by rte_eal_init, which would log "FATAL: already called initialization". */
        pthread_mutex_unlock(&eal_lock);
        return -EALREADY;
    }
    /* Both the copy and argv stay allocated for the life of the process: getopt and EAL may keep pointers. */
    char *text = strdup(args == NULL ? "" : args);
    char *tokens = strdup(text);
    char **argv = calloc(DPX_MAX_ARGS + 1, sizeof(char *));
    if (text == NULL || tokens == NULL || argv == NULL) {
        free(text);
        free(tokens);
        free(argv);
        pthread_mutex_unlock(&eal_lock);
        return -ENOMEM;
    }
    int argc = 0;
    argv[argc++] = "tandem";
    char *save = NULL;
    for (char *t = strtok_r(tokens, " \t\r\n", &save); t != NULL; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (argc == DPX_MAX_ARGS) {
            free(text);
            free(tokens);
            free(argv);
            pthread_mutex_unlock(&eal_lock);
            return -E2BIG;
        }
        argv[argc++] = t;
    }
    int rc = rte_eal_init(argc, argv);
    if (rc < 0) {
        int e = rte_errno;
        /* EALREADY from rte_eal_init itself means an earlier attempt failed after EAL set its once-only flag: EAL
         * is neither up nor startable in this process any more. */
        rc = e == EALREADY ? DPX_EAL_NOT_RETRYABLE : -(e == 0 ? EINVAL : e);
        eal_state = rc;
        pthread_mutex_unlock(&eal_lock);
        return rc;
    }
    eal_state = 1;
    eal_args_text = text;
    pthread_mutex_unlock(&eal_lock);
    return 0;
}

/*
 * Control operations (open, close, restart) run on EAL's interrupt thread.
 *
 * Why: memif's control channel runs on that thread, and when a peer connects or disconnects it calls
 * memif_disconnect/memif_connect there, without any lock against the application. A port stopped or closed on
 * another thread at the same moment has its shared-memory regions freed twice (seen: SIGSEGV in rte_free from
 * memif_free_regions on eal-intr-thread, when one side of an in-process pair closed right after the other).
 * An EAL alarm runs its callback on the interrupt thread, which serialises our control calls with memif's.
 * EAL's own multi-process hotplug runs rte_dev_probe/remove from an alarm the same way.
 */
struct ctl_call {
    int (*fn)(void *arg);
    void *arg;
    int rc;
    int done;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

static void ctl_run(void *p)
{
    struct ctl_call *c = p;
    int rc = c->fn(c->arg);
    pthread_mutex_lock(&c->lock);
    c->rc = rc;
    c->done = 1;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static int on_intr_thread(int (*fn)(void *arg), void *arg)
{
    if (rte_thread_is_intr()) {
        return fn(arg);
    }
    struct ctl_call c = {.fn = fn, .arg = arg, .rc = 0, .done = 0};
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    int rc = rte_eal_alarm_set(1, ctl_run, &c);
    if (rc == 0) {
        /* No timeout: c lives on this stack until the callback has signalled. */
        pthread_mutex_lock(&c.lock);
        while (!c.done) {
            pthread_cond_wait(&c.cond, &c.lock);
        }
        pthread_mutex_unlock(&c.lock);
        rc = c.rc;
    }
    pthread_cond_destroy(&c.cond);
    pthread_mutex_destroy(&c.lock);
    return rc;
}

static int valid(int port)
{
    return port >= 0 && port < RTE_MAX_ETHPORTS && ports[port].used;
}

static void fail(char *err, size_t errlen, const char *fmt, const char *what, int rc)
{
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, fmt, what, rte_strerror(rc < 0 ? -rc : rc));
    }
}

/*
 * memif's listening socket outlives its port. DPDK 22.11's memif_socket_remove_device, when the last port on a
 * socket closes, unlinks the socket file and frees its struct, but neither unregisters the listener's interrupt
 * callback nor closes the listening descriptor. A peer that connected in the moment before (a replica reconnecting
 * while the primary's transport is updated) stays queued on it: the descriptor stays readable, and
 * eal-intr-thread calls the callback with the freed struct without end ("memif_listener_handler(): Failed to accept
 * connection request on socket fd -1"), which starves every other memif control channel of the process. The shim
 * finds the listening descriptor when a server port opens, and when the port has closed and no other port shares it,
 * puts an eventfd that never fires in its place (dup2): the socket is released, its queued peers are refused (they
 * reconnect), and the callback, which cannot be unregistered from here (memif's handler is static), is never called
 * again. The eventfd keeps the descriptor number, so that no later file takes it while EAL still watches it.
 */
static int listener_of(const char *path, ino_t *ino)
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) {
        return -1;
    }
    int found = -1;
    struct dirent *e;
    while (found < 0 && (e = readdir(dir)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name || fd == dirfd(dir)) {
            continue;
        }
        struct stat st;
        int listening = 0;
        socklen_t len = sizeof(listening);
        struct sockaddr_un addr;
        socklen_t alen = sizeof(addr);
        memset(&addr, 0, sizeof(addr));
        if (fstat((int)fd, &st) == 0 && S_ISSOCK(st.st_mode)
                && getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening
                && getsockname((int)fd, (struct sockaddr *)&addr, &alen) == 0 && addr.sun_family == AF_UNIX
                && strncmp(addr.sun_path, path, sizeof(addr.sun_path)) == 0) {
            found = (int)fd;
            *ino = st.st_ino;
        }
    }
    closedir(dir);
    return found;
}

/* The value of key=... in comma-separated devargs, or "" when absent. */
static void devarg(const char *devargs, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    size_t klen = strlen(key);
    for (const char *p = devargs; p != NULL && *p != '\0';) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t vlen = strcspn(v, ",");
            snprintf(out, n, "%.*s", (int)(vlen < n ? vlen : n - 1), v);
            return;
        }
        const char *comma = strchr(p, ',');
        p = comma == NULL ? NULL : comma + 1;
    }
}

/* Called with ports_lock held, on eal-intr-thread (so no memif callback runs meanwhile), after p's port closed. */
static void retire_listener(struct dpx_port *p)
{
    if (p->listener_fd < 0) {
        return;
    }
    for (int i = 0; i < RTE_MAX_ETHPORTS; i++) {
        if (&ports[i] != p && ports[i].used && ports[i].listener_fd == p->listener_fd) {
            return; /* another port still serves on this socket: memif keeps it */
        }
    }
    struct stat st;
    if (fstat(p->listener_fd, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_ino != p->listener_ino) {
        return; /* closed by memif after all (a DPDK that cleans up): the number may be someone else's now */
    }
    int efd = eventfd(0, EFD_CLOEXEC);
    if (efd < 0) {
        return;
    }
    if (dup2(efd, p->listener_fd) < 0) {
        close(efd);
        return;
    }
    close(efd);
}

struct open_args {
    const char *vdev;
    const char *devargs;
    unsigned nb_mbufs;
    unsigned ring;
    int tolerate_start_failure;
    char *err;
    size_t errlen;
};

static int port_open_ctl(void *arg)
{
    struct open_args *a = arg;
    const char *vdev = a->vdev;
    const char *devargs = a->devargs;
    char *err = a->err;
    size_t errlen = a->errlen;
    pthread_mutex_lock(&ports_lock);
    int rc = rte_eal_hotplug_add("vdev", vdev, devargs == NULL ? "" : devargs);
    if (rc < 0) {
        fail(err, errlen, "rte_eal_hotplug_add(vdev, %s) failed: %s", vdev, rc);
        pthread_mutex_unlock(&ports_lock);
        return rc;
    }
    uint16_t port;
    rc = rte_eth_dev_get_port_by_name(vdev, &port);
    if (rc < 0 || port >= RTE_MAX_ETHPORTS || ports[port].used) {
        fail(err, errlen, "%s: no usable ethdev port after hotplug: %s", vdev, rc < 0 ? rc : -EBUSY);
        rte_eal_hotplug_remove("vdev", vdev);
        pthread_mutex_unlock(&ports_lock);
        return rc < 0 ? rc : -EBUSY;
    }
    /* One pool per port, named after the (process-unique) vdev: closing a port frees exactly its own mbufs.
     * No per-lcore cache: the I/O threads are non-EAL threads, which bypass it anyway. */
    char pool_name[RTE_MEMPOOL_NAMESIZE];
    snprintf(pool_name, sizeof(pool_name), "dpx_%s", vdev);
    struct rte_mempool *pool = rte_pktmbuf_pool_create(pool_name, a->nb_mbufs, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                       SOCKET_ID_ANY);
    if (pool == NULL) {
        rc = -rte_errno;
        fail(err, errlen, "rte_pktmbuf_pool_create(%s) failed: %s", pool_name, rc);
        goto remove;
    }
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    rc = rte_eth_dev_configure(port, 1, 1, &conf);
    if (rc < 0) {
        fail(err, errlen, "rte_eth_dev_configure(%s) failed: %s", vdev, rc);
        goto close;
    }
    rc = rte_eth_rx_queue_setup(port, 0, a->ring, SOCKET_ID_ANY, NULL, pool);
    if (rc < 0) {
        fail(err, errlen, "rte_eth_rx_queue_setup(%s) failed: %s", vdev, rc);
        goto close;
    }
    rc = rte_eth_tx_queue_setup(port, 0, a->ring, SOCKET_ID_ANY, NULL);
    if (rc < 0) {
        fail(err, errlen, "rte_eth_tx_queue_setup(%s) failed: %s", vdev, rc);
        goto close;
    }
    rc = rte_eth_dev_start(port);
    if (rc < 0 && !a->tolerate_start_failure) {
        fail(err, errlen, "rte_eth_dev_start(%s) failed: %s", vdev, rc);
        goto close;
    }
    struct dpx_port *p = &ports[port];
    memset(p, 0, sizeof(*p));
    snprintf(p->vdev, sizeof(p->vdev), "%s", vdev);
    p->pool = pool;
    p->listener_fd = -1;
    char role[16];
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    devarg(devargs, "role", role, sizeof(role));
    devarg(devargs, "socket", socket_path, sizeof(socket_path));
    if (strcmp(role, "server") == 0 && socket_path[0] != '\0') {
        p->listener_fd = listener_of(socket_path, &p->listener_ino);
    }
    p->used = 1;
    pthread_mutex_unlock(&ports_lock);
    return port;

close:
    rte_eth_dev_stop(port);
    rte_eth_dev_close(port);
remove:
    rte_eal_hotplug_remove("vdev", vdev);
    if (pool != NULL) {
        rte_mempool_free(pool);
    }
    pthread_mutex_unlock(&ports_lock);
    return rc;
}

int dpx_port_open(const char *vdev, const char *devargs, unsigned nb_mbufs, unsigned ring,
                  int tolerate_start_failure, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0) {
        err[0] = '\0';
    }
    if (vdev == NULL || strlen(vdev) >= RTE_DEV_NAME_MAX_LEN) {
        fail(err, errlen, "bad vdev name %s: %s", vdev == NULL ? "(null)" : vdev, EINVAL);
        return -EINVAL;
    }
    struct open_args a = {vdev, devargs, nb_mbufs, ring, tolerate_start_failure, err, errlen};
    int rc = on_intr_thread(port_open_ctl, &a);
    if (rc < 0 && err != NULL && errlen > 0 && err[0] == '\0') {
        fail(err, errlen, "%s: cannot run on the EAL interrupt thread: %s", vdev, rc);
    }
    return rc;
}

static int port_close_ctl(void *arg)
{
    int port = *(int *)arg;
    pthread_mutex_lock(&ports_lock);
    if (!valid(port)) {
        pthread_mutex_unlock(&ports_lock);
        return -ENODEV;
    }
    struct dpx_port *p = &ports[port];
    /* Stashed mbufs belong to the pool freed below. */
    for (uint16_t i = 0; i < p->stash_count; i++) {
        rte_pktmbuf_free(p->stash[p->stash_head + i]);
    }
    p->stash_count = 0;
    int first = 0;
    int rc = rte_eth_dev_stop((uint16_t)port);
    if (rc < 0 && first == 0) {
        first = rc;
    }
    rc = rte_eth_dev_close((uint16_t)port);
    if (rc < 0 && first == 0) {
        first = rc;
    }
    rc = rte_eal_hotplug_remove("vdev", p->vdev);
    if (rc < 0 && first == 0) {
        first = rc;
    }
    /* After the device is gone: its queues no longer reference the pool. */
    rte_mempool_free(p->pool);
    p->used = 0;
    retire_listener(p);
    memset(p, 0, sizeof(*p));
    pthread_mutex_unlock(&ports_lock);
    return first;
}

int dpx_port_close(int port)
{
    return on_intr_thread(port_close_ctl, &port);
}

int dpx_link_up(int port)
{
    if (!valid(port)) {
        return -ENODEV;
    }
    struct rte_eth_link link;
    memset(&link, 0, sizeof(link));
    int rc = rte_eth_link_get_nowait((uint16_t)port, &link);
    if (rc < 0) {
        return rc;
    }
    return link.link_status == RTE_ETH_LINK_UP ? 1 : 0;
}

static int port_restart_ctl(void *arg)
{
    int port = *(int *)arg;
    rte_eth_dev_stop((uint16_t)port);
    return rte_eth_dev_start((uint16_t)port);
}

int dpx_port_restart(int port)
{
    if (!valid(port)) {
        return -ENODEV;
    }
    /* A memif client connects only in dev_start and never retries on its own (probe §9). */
    return on_intr_thread(port_restart_ctl, &port);
}

static inline uint16_t read_u16le(const uint8_t *b)
{
    return (uint16_t)(b[0] | (b[1] << 8));
}

int dpx_tx(int port, const uint8_t *buf, uint32_t len, uint32_t *consumed)
{
    *consumed = 0;
    if (!valid(port)) {
        return -ENODEV;
    }
    /* Check every record before anything leaves: a caller's bad record must not half-send a batch. */
    for (uint32_t o = 0; o < len;) {
        if (len - o < 2) {
            *consumed = o;
            return -EINVAL;
        }
        uint16_t l = read_u16le(buf + o);
        if (l == 0 || l > DPX_MAX_FRAME || len - o - 2 < l) {
            *consumed = o;
            return -EINVAL;
        }
        o += 2u + l;
    }
    struct rte_mempool *pool = ports[port].pool;
    struct rte_mbuf *m[DPX_BURST];
    uint32_t starts[DPX_BURST];
    uint32_t off = 0;
    int sent = 0;
    while (off < len) {
        uint16_t n = 0;
        uint32_t o = off;
        while (n < DPX_BURST && o < len) {
            starts[n++] = o;
            o += 2u + read_u16le(buf + o);
        }
        /* Pool exhausted is backpressure too: report what went, the caller retries the rest. */
        if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0) {
            break;
        }
        for (uint16_t i = 0; i < n; i++) {
            uint16_t l = read_u16le(buf + starts[i]);
            char *d = rte_pktmbuf_append(m[i], l);
            memcpy(d, buf + starts[i] + 2, l);
        }
        uint16_t k = rte_eth_tx_burst((uint16_t)port, 0, m, n);
        if (k < n) {
            rte_pktmbuf_free_bulk(m + k, n - k);
        }
        sent += k;
        off = k == n ? o : starts[k];
        if (k < n) {
            break; /* the ring is full (memif backpressure) or the link is down */
        }
    }
    *consumed = off;
    return sent;
}

int dpx_rx(int port, uint8_t *buf, uint32_t cap, int max_frames, uint32_t *written)
{
    *written = 0;
    if (!valid(port)) {
        return -ENODEV;
    }
    struct dpx_port *p = &ports[port];
    uint32_t off = 0;
    int n = 0;
    while (n < max_frames) {
        if (p->stash_count == 0) {
            /* Take no more than the caller asked for, so that the stash only ever holds frames that did not fit. */
            uint16_t want = (uint16_t)(max_frames - n < DPX_BURST ? max_frames - n : DPX_BURST);
            uint16_t got = rte_eth_rx_burst((uint16_t)port, 0, p->stash, want);
            if (got == 0) {
                break;
            }
            p->stash_head = 0;
            p->stash_count = got;
        }
        struct rte_mbuf *m = p->stash[p->stash_head];
        uint32_t l = rte_pktmbuf_pkt_len(m);
        if (l <= 0xFFFF) {
            if (cap - off < 2u + l) {
                break; /* stays stashed for the next call */
            }
            buf[off] = (uint8_t)l;
            buf[off + 1] = (uint8_t)(l >> 8);
            /* rte_pktmbuf_read copies only when the frame spans segments; otherwise it points into the mbuf. */
            const void *src = rte_pktmbuf_read(m, 0, l, buf + off + 2);
            if (src != buf + off + 2) {
                memcpy(buf + off + 2, src, l);
            }
            off += 2u + l;
            n++;
        }
        /* A frame over 65535 bytes cannot be expressed as a record: it is dropped (memif cannot produce one). */
        rte_pktmbuf_free(m);
        p->stash_head++;
        p->stash_count--;
    }
    *written = off;
    return n;
}

int dpx_stats(int port, uint64_t out[8])
{
    if (!valid(port)) {
        return -ENODEV;
    }
    struct rte_eth_stats s;
    int rc = rte_eth_stats_get((uint16_t)port, &s);
    if (rc < 0) {
        return rc;
    }
    out[0] = s.ipackets;
    out[1] = s.opackets;
    out[2] = s.ibytes;
    out[3] = s.obytes;
    out[4] = s.imissed;
    out[5] = s.ierrors;
    out[6] = s.oerrors;
    out[7] = s.rx_nombuf;
    return 0;
}
