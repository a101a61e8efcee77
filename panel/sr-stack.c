/* sr-stack.c: showing one page of a GtkStack, to everyone
 *
 * GtkStack alone leaves its hidden pages "visible" to assistive
 * technologies: a screen reader would read a status page that is not
 * there. Only the page shown is visible here.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include "sr-stack.h"

void
sr_stack_show_only (GtkStack   *stack,
                    const char *name)
{
  GtkSelectionModel *pages = gtk_stack_get_pages (stack);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (pages));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkStackPage *page = GTK_STACK_PAGE (item);

      gtk_widget_set_visible (gtk_stack_page_get_child (page),
                              g_str_equal (gtk_stack_page_get_name (page), name));
    }
  g_object_unref (pages);
  gtk_stack_set_visible_child_name (stack, name);
}
