/* session-restore.h: the one header of libsessionrestore
 *
 *   #include <session-restore.h>
 *
 * with the flags of pkg-config's session-restore-1.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define __SESSION_RESTORE_H_INSIDE__

#include "sr-version.h"
#include "sr-enums.h"
#include "sr-error.h"
#include "sr-enum-types.h"
#include "sr-policy-client.h"

#undef __SESSION_RESTORE_H_INSIDE__
