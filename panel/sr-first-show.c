/* sr-first-show.c: when the settings window first shows itself
 *
 * The window shows as soon as it can say what is true: the settings and
 * the filled list, or that policyd cannot be reached; at the latest after
 * PRESENT_DELAY_MS, with its loading state. What the first frame does not
 * show (the other page) is built once that frame has been drawn. For
 * benchmarks (G_MESSAGES_DEBUG=sr-panel) it logs the first frame that
 * shows the filled list.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include "sr-first-show.h"

/* How long the window waits for policyd's first answers before it shows
 * its loading state instead. They normally take a few milliseconds once
 * the window is built: a spinner flashed for that long says nothing, and
 * a second frame costs the time the first one took. */
#define PRESENT_DELAY_MS 300

struct _SrFirstShow {
  GtkWindow *window;              /* (unowned): owns this */
  SrClient *client;               /* (owned) */
  SrAppList *apps;                /* (owned) */
  SrFirstShowThen then;           /* (nullable) once the first filled frame is drawn */
  guint present_timeout_id;       /* while the window waits to be shown */
  guint then_id;                  /* from that frame until then has run */
  gulong after_paint_id;
  gulong ready_id;
  gulong realize_id;
  gboolean first_frame_seen;
};

/* @self NULL: the window went, with nothing left to show. */
void
sr_first_show_now (SrFirstShow *self)
{
  if (self == NULL || self->present_timeout_id == 0)
    return;
  g_clear_handle_id (&self->present_timeout_id, g_source_remove);
  gtk_window_present (self->window);
}

static gboolean
on_present_timeout_cb (gpointer user_data)
{
  SrFirstShow *self = user_data;

  self->present_timeout_id = 0;
  gtk_window_present (self->window);
  return G_SOURCE_REMOVE;
}

void
sr_first_show_when_ready (SrFirstShow *self)
{
  if (gtk_widget_get_visible (GTK_WIDGET (self->window)) || sr_app_list_get_ready (self->apps) ||
      sr_client_get_missing (self->client) || sr_client_get_distrust (self->client) != NULL)
    {
      gtk_window_present (self->window);
      return;
    }
  if (self->present_timeout_id == 0)
    self->present_timeout_id = g_timeout_add (PRESENT_DELAY_MS, on_present_timeout_cb, self);
}

static gboolean
on_then_idle_cb (gpointer user_data)
{
  SrFirstShow *self = user_data;

  self->then_id = 0;
  self->then (self->window);
  return G_SOURCE_REMOVE;
}

/* The first frame that shows the settings and the filled app list, on
 * the monotonic clock. An idle, not a timeout: the frame clock's next
 * paint comes first if one is due. */
static void
on_after_paint_cb (GdkFrameClock *clock,
                   SrFirstShow   *self)
{
  g_debug ("first-frame-monotonic-usec=%" G_GINT64_FORMAT, g_get_monotonic_time ());
  g_clear_signal_handler (&self->after_paint_id, clock);
  self->first_frame_seen = TRUE;
  if (self->then != NULL)
    self->then_id = g_idle_add (on_then_idle_cb, self);
}

/* Once the list is ready and the window has a frame clock, whichever
 * comes last. */
static void
watch_first_filled_frame (SrFirstShow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self->window));

  if (clock == NULL || self->after_paint_id != 0 || self->first_frame_seen ||
      !sr_app_list_get_ready (self->apps))
    return;
  self->after_paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), self);
  gtk_widget_queue_draw (GTK_WIDGET (self->window));
}

static void
on_apps_ready_cb (SrFirstShow *self)
{
  if (!sr_app_list_get_ready (self->apps))
    return;
  /* The list can come in while the client's "changed" is still queued:
   * presented then, the window showed its spinner, which had GTK load
   * the spinner's SVG icon (and librsvg, some 9 MiB) in about half the
   * starts, however soon the content replaced it. */
  sr_client_flush_changed (self->client);
  sr_first_show_now (self);
  watch_first_filled_frame (self);
}

/* Freed by the window as it is disposed. */
SrFirstShow *
sr_first_show_new (GtkWindow       *window,
                   SrClient        *client,
                   SrAppList       *apps,
                   SrFirstShowThen  then)
{
  SrFirstShow *self = g_new0 (SrFirstShow, 1);

  self->window = window;
  self->then = then;
  self->client = g_object_ref (client);
  self->apps = g_object_ref (apps);
  self->ready_id = g_signal_connect_swapped (apps, "notify::ready", G_CALLBACK (on_apps_ready_cb), self);
  self->realize_id = g_signal_connect_swapped (window, "realize",
                                               G_CALLBACK (watch_first_filled_frame), self);
  watch_first_filled_frame (self);
  return self;
}

void
sr_first_show_free (SrFirstShow *self)
{
  g_clear_handle_id (&self->present_timeout_id, g_source_remove);
  g_clear_handle_id (&self->then_id, g_source_remove);
  if (self->after_paint_id != 0)
    g_clear_signal_handler (&self->after_paint_id, gtk_widget_get_frame_clock (GTK_WIDGET (self->window)));
  g_clear_signal_handler (&self->ready_id, self->apps);
  g_clear_signal_handler (&self->realize_id, self->window);
  g_object_unref (self->apps);
  g_object_unref (self->client);
  g_free (self);
}
