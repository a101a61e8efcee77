/* sr-version.h: what libsessionrestore exports
 *
 * The library is built with -fvisibility=hidden: only what is marked
 * SR_AVAILABLE_IN_ALL is exported, and libsessionrestore.symbols lists it
 * (the ABI check, tests/unit/meson.build). Code of common/ compiled into
 * the library stays private to it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/**
 * SR_AVAILABLE_IN_ALL:
 *
 * Marks a function or variable of the public API: exported from
 * libsessionrestore-1.so, available in every version of it.
 */
#define SR_AVAILABLE_IN_ALL __attribute__((visibility ("default"))) extern
