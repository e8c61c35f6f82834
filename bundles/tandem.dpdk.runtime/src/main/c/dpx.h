/*
 * dpx: the plain C ABI of Tandem's DPDK shim (libtandem-dpx.so).
 *
 * Why a plain C ABI and no DPDK types here: the JNI glue (libtandem-dpxjni.so) is compiled against this header only,
 * and an FFM binding on a later JDK can bind the same symbols. DPDK itself is linked statically into
 * libtandem-dpx.so, whose exported symbols are exactly the dpx_* functions below.
 *
 * Why two libraries: EAL state lives in libtandem-dpx.so. A JVM can load one JNI library file into one class loader
 * only, so every bundle generation loads its own copy of the (stateless) glue; all copies bind by soname to the one
 * libtandem-dpx.so already in the process, so EAL is initialised once per process however often the bundle is
 * updated. libtandem-dpx.so is linked with -z nodelete: it is never unmapped, because eal-intr-thread keeps running
 * its code for the life of the process.
 *
 * Threading: dpx_eal_init, dpx_port_open and dpx_port_close serialise on internal locks and may be called from any
 * thread. A port's data path (dpx_tx, dpx_rx, dpx_link_up, dpx_port_restart, dpx_stats) belongs to one owner thread
 * at a time: DPDK queues are not thread-safe.
 */
#ifndef DPX_H
#define DPX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a signature or meaning below changes: a glue copy of a newer bundle generation refuses to run
 * against an older libtandem-dpx.so still mapped in the process (it cannot be replaced without a JVM restart). */
#define DPX_ABI 1

/* Largest frame carried, bytes: memif's buffers are 2048 bytes and its max_rx_pktlen is 1518. */
#define DPX_MAX_FRAME 1500

/* Frames moved per rte_eth_*_burst call; also the size of a port's receive stash. */
#define DPX_BURST 32

/* Return code of dpx_eal_init when an earlier attempt in this process failed in a way EAL cannot retry. */
#define DPX_EAL_NOT_RETRYABLE (-131) /* -ENOTRECOVERABLE */

/** @return DPX_ABI of this library */
int dpx_abi(void);

/**
 * Initialises EAL once per process with whitespace-separated arguments (no quoting; argv[0] is supplied).
 * @return 0 when this call initialised EAL; -EALREADY (-114) when an earlier call in this process already did
 *         (treat as success: dpx_eal_args() tells with which arguments); DPX_EAL_NOT_RETRYABLE when an earlier call
 *         failed and left EAL unable to start again; otherwise -rte_errno of the failed rte_eal_init
 */
int dpx_eal_init(const char *args);

/** @return the arguments EAL was initialised with, or NULL when EAL is not up */
const char *dpx_eal_args(void);

/** @return a description of an errno or rte_errno value (positive) */
const char *dpx_strerror(int err);

/** @return the next value of a process-wide counter, for vdev and mempool names unique across bundle generations */
int dpx_next_id(void);

/**
 * Adds vdev (e.g. "net_memif3") with devargs through rte_eal_hotplug_add, creates its mbuf pool (nb_mbufs),
 * configures 1 rx and 1 tx queue of ring descriptors each, and starts it.
 * @param tolerate_start_failure nonzero: a failed rte_eth_dev_start still returns the port (a memif client whose
 *        server is not there yet; dpx_port_restart retries)
 * @param err receives a reason when the call fails (may be NULL)
 * @return the ethdev port id (>= 0), or -errno with the reason in err; nothing stays allocated on failure
 */
int dpx_port_open(const char *vdev, const char *devargs, unsigned nb_mbufs, unsigned ring,
                  int tolerate_start_failure, char *err, size_t errlen);

/** Stops and closes the port, removes its vdev (rte_eal_hotplug_remove) and frees its stash and mbuf pool.
 * @return 0, or -errno of the first step that failed (the remaining steps still run) */
int dpx_port_close(int port);

/** @return 1 when the link is up, 0 when down, -errno for an unknown port */
int dpx_link_up(int port);

/** rte_eth_dev_stop + rte_eth_dev_start: how a memif client reconnects. @return the start's result (0 or -errno) */
int dpx_port_restart(int port);

/**
 * Sends records [u16 little-endian length][frame] packed in buf[0..len): first checks every record (length
 * 1..DPX_MAX_FRAME, not truncated), then sends as many whole records as the port accepts now.
 * @param consumed receives the bytes of the records sent; on -EINVAL, the offset of the first bad record
 * @return frames sent (0 under backpressure or while the link is down), -EINVAL for a bad record (nothing sent),
 *         -ENODEV for an unknown port
 */
int dpx_tx(int port, const uint8_t *buf, uint32_t len, uint32_t *consumed);

/**
 * Receives at most max_frames frames into buf[0..cap) as records [u16 little-endian length][frame]. A frame that does
 * not fit stays in the port's stash and is the first one delivered by the next call.
 * @param written receives the bytes written
 * @return frames written, or -ENODEV for an unknown port
 */
int dpx_rx(int port, uint8_t *buf, uint32_t cap, int max_frames, uint32_t *written);

/** Fills out[8] with ipackets, opackets, ibytes, obytes, imissed, ierrors, oerrors, rx_nombuf. @return 0 or -errno */
int dpx_stats(int port, uint64_t out[8]);

#ifdef __cplusplus
}
#endif

#endif
