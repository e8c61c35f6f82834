/*
 * JNI glue for tandem.dpdk.internal.Native (libtandem-dpxjni.so).
 *
 * Stateless on purpose: every bundle generation loads its own copy of this file (a JVM binds one JNI library file to
 * one class loader), and all copies call into the single libtandem-dpx.so of the process, where EAL and the port
 * table live. Buffers are direct ByteBuffers passed with their position and limit, so that no array is pinned or
 * copied on the data path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <sched.h>
#include <stdio.h>

#include "dpx.h"

#define NATIVE(name) JNICALL Java_tandem_dpdk_internal_Native_##name

static void throw_new(JNIEnv *env, const char *cls, const char *msg)
{
    jclass c = (*env)->FindClass(env, cls);
    if (c != NULL) {
        (*env)->ThrowNew(env, c, msg);
    }
}

/* Resolves buf[position..limit) to an address; throws and returns NULL when that is not a valid direct range. */
static uint8_t *range(JNIEnv *env, jobject buf, jint position, jint limit)
{
    uint8_t *base = (*env)->GetDirectBufferAddress(env, buf);
    if (base == NULL) {
        throw_new(env, "java/lang/IllegalArgumentException", "not a direct buffer");
        return NULL;
    }
    jlong capacity = (*env)->GetDirectBufferCapacity(env, buf);
    if (position < 0 || position > limit || limit > capacity) {
        char msg[128];
        snprintf(msg, sizeof(msg), "bad range: position=%d limit=%d capacity=%lld", (int)position, (int)limit,
                 (long long)capacity);
        throw_new(env, "java/lang/IllegalArgumentException", msg);
        return NULL;
    }
    return base + position;
}

static void not_open(JNIEnv *env, jint port)
{
    char msg[64];
    snprintf(msg, sizeof(msg), "DPDK port %d is not open", (int)port);
    throw_new(env, "java/lang/IllegalStateException", msg);
}

JNIEXPORT jint NATIVE(abi)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return dpx_abi();
}

JNIEXPORT jint NATIVE(ealInit)(JNIEnv *env, jclass cls, jstring args)
{
    (void)cls;
    const char *a = (*env)->GetStringUTFChars(env, args, NULL);
    if (a == NULL) {
        return -ENOMEM; /* OutOfMemoryError pending */
    }
    int rc = dpx_eal_init(a);
    (*env)->ReleaseStringUTFChars(env, args, a);
    return rc;
}

JNIEXPORT jstring NATIVE(ealArgs)(JNIEnv *env, jclass cls)
{
    (void)cls;
    const char *a = dpx_eal_args();
    return a == NULL ? NULL : (*env)->NewStringUTF(env, a);
}

JNIEXPORT jstring NATIVE(strerror)(JNIEnv *env, jclass cls, jint err)
{
    (void)cls;
    return (*env)->NewStringUTF(env, dpx_strerror(err < 0 ? -err : err));
}

JNIEXPORT jint NATIVE(nextId)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return dpx_next_id();
}

JNIEXPORT jint NATIVE(portOpen)(JNIEnv *env, jclass cls, jstring vdev, jstring devargs, jint nb_mbufs, jint ring,
                                jboolean tolerate_start_failure)
{
    (void)cls;
    const char *v = (*env)->GetStringUTFChars(env, vdev, NULL);
    if (v == NULL) {
        return -ENOMEM;
    }
    const char *d = (*env)->GetStringUTFChars(env, devargs, NULL);
    if (d == NULL) {
        (*env)->ReleaseStringUTFChars(env, vdev, v);
        return -ENOMEM;
    }
    char err[512];
    int rc = dpx_port_open(v, d, (unsigned)nb_mbufs, (unsigned)ring, tolerate_start_failure, err, sizeof(err));
    (*env)->ReleaseStringUTFChars(env, devargs, d);
    (*env)->ReleaseStringUTFChars(env, vdev, v);
    if (rc < 0) {
        throw_new(env, "java/io/IOException", err);
    }
    return rc;
}

JNIEXPORT jint NATIVE(portClose)(JNIEnv *env, jclass cls, jint port)
{
    (void)env;
    (void)cls;
    return dpx_port_close(port);
}

JNIEXPORT jint NATIVE(linkUp)(JNIEnv *env, jclass cls, jint port)
{
    (void)cls;
    int rc = dpx_link_up(port);
    if (rc == -ENODEV) {
        not_open(env, port);
    }
    return rc;
}

JNIEXPORT jint NATIVE(portRestart)(JNIEnv *env, jclass cls, jint port)
{
    (void)cls;
    int rc = dpx_port_restart(port);
    if (rc == -ENODEV) {
        not_open(env, port);
    }
    return rc;
}

/* @return (frames << 32) | bytes consumed */
JNIEXPORT jlong NATIVE(tx)(JNIEnv *env, jclass cls, jint port, jobject buf, jint position, jint limit)
{
    (void)cls;
    uint8_t *b = range(env, buf, position, limit);
    if (b == NULL) {
        return 0;
    }
    uint32_t consumed = 0;
    int n = dpx_tx(port, b, (uint32_t)(limit - position), &consumed);
    if (n == -EINVAL) {
        char msg[160];
        uint32_t left = (uint32_t)(limit - position) - consumed;
        if (left < 2) {
            snprintf(msg, sizeof(msg), "truncated record at position %u: %u byte(s) left, a length takes 2; "
                     "nothing was sent", (unsigned)(position + consumed), (unsigned)left);
        } else {
            unsigned l = b[consumed] | (b[consumed + 1] << 8);
            if (l == 0 || l > DPX_MAX_FRAME) {
                snprintf(msg, sizeof(msg), "record at position %u has length %u, not in 1..%d; nothing was sent",
                         (unsigned)(position + consumed), l, DPX_MAX_FRAME);
            } else {
                snprintf(msg, sizeof(msg), "truncated record at position %u: length %u but %u byte(s) left; "
                         "nothing was sent", (unsigned)(position + consumed), l, (unsigned)(left - 2));
            }
        }
        throw_new(env, "java/lang/IllegalArgumentException", msg);
        return 0;
    }
    if (n < 0) {
        not_open(env, port);
        return 0;
    }
    return ((jlong)n << 32) | (jlong)consumed;
}

/* @return (frames << 32) | bytes written */
JNIEXPORT jlong NATIVE(rx)(JNIEnv *env, jclass cls, jint port, jobject buf, jint position, jint limit,
                           jint max_frames)
{
    (void)cls;
    uint8_t *b = range(env, buf, position, limit);
    if (b == NULL) {
        return 0;
    }
    uint32_t written = 0;
    int n = dpx_rx(port, b, (uint32_t)(limit - position), max_frames, &written);
    if (n < 0) {
        not_open(env, port);
        return 0;
    }
    return ((jlong)n << 32) | (jlong)written;
}

JNIEXPORT jint NATIVE(stats)(JNIEnv *env, jclass cls, jint port, jlongArray out)
{
    (void)cls;
    uint64_t s[8];
    int rc = dpx_stats(port, s);
    if (rc == -ENODEV) {
        not_open(env, port);
        return rc;
    }
    if (rc == 0) {
        (*env)->SetLongArrayRegion(env, out, 0, 8, (const jlong *)s);
    }
    return rc;
}

/* Pins the calling thread (a DPDK link's I/O thread) to one CPU: sched_setaffinity with pid 0 applies to the calling
 * thread only. Returns 0, or -errno (EINVAL: the CPU is not in this process's allowed set). */
JNIEXPORT jint NATIVE(pinCurrentThread)(JNIEnv *env, jclass cls, jint cpu)
{
    (void)env;
    (void)cls;
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        return -EINVAL;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : -errno;
}
