/* sr-lock-icon.c: "Set by your administrator", as every locked row shows it
 *
 * A lock and the words, visible: a locked control is never hidden and
 * never looks merely disabled.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-lock-icon.h"

struct _SrLockIcon {
  GtkBox parent_instance;
};

G_DEFINE_FINAL_TYPE (SrLockIcon, sr_lock_icon, GTK_TYPE_BOX)

static void
sr_lock_icon_class_init (SrLockIconClass *klass)
{
  gtk_widget_class_set_template_from_resource (GTK_WIDGET_CLASS (klass),
                                               "/org/gnome/SessionRestore/sr-lock-icon.ui");
}

static void
sr_lock_icon_init (SrLockIcon *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* Shows @lock when @locked; @control is sensitive when it @applies and is
 * not locked. The one place that decides what a lock does to a control. */
void
sr_lock_icon_apply (GtkWidget *lock,
                    GtkWidget *control,
                    gboolean   locked,
                    gboolean   applies)
{
  gtk_widget_set_visible (lock, locked);
  gtk_widget_set_sensitive (control, applies && !locked);
  gtk_widget_set_tooltip_text (control, locked ? _("Set by your administrator") : NULL);
}
