/* bench-panel-baseline.c: the least a libadwaita program does to show
 * what the panel shows as it opens, for bench_panel_startup.py
 *
 * A plain AdwApplication whose window holds the panel's rows, built in
 * code from a file the benchmark writes: on the settings page the same
 * groups, rows and totals; on the Apps page one row per app (icon, name,
 * subtitle, switch) under a search entry. It does not ask policyd, polkit
 * or the installed apps for anything: what the panel costs beyond this is
 * what its design costs. Like the panel under G_MESSAGES_DEBUG, it prints
 * first-frame-monotonic-usec= when its first frame has been painted.
 *
 *   bench-panel-baseline settings|apps ROWS
 *
 * ROWS: the first line is the line under the main switch (who uses
 * policyd), the second the Saved Sessions totals, the third the "Keep
 * Saved Sessions For" choice shown ("30 Days"); then one line per app,
 * "icon-name<TAB>name<TAB>subtitle".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "bench-panel-baseline"

#include <adwaita.h>

static const char *page;
static char **lines;

static void
on_after_paint_cb (GdkFrameClock *clock,
                   gpointer       user_data)
{
  gulong *handler = user_data;

  g_print ("first-frame-monotonic-usec=%" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_clear_signal_handler (handler, clock);
}

static void
on_realize_cb (GtkWidget *window)
{
  static gulong handler;

  handler = g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint",
                              G_CALLBACK (on_after_paint_cb), &handler);
}

static GtkWidget *
switch_row (const char *title,
            const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  return row;
}

static GtkWidget *
combo_row (const char         *title,
           const char         *subtitle,
           const char * const *choices,
           const char         *shown)
{
  GtkWidget *row = adw_combo_row_new ();
  GtkStringList *model = gtk_string_list_new (choices);
  guint selected = 0;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  /* @shown, when not one of @choices, is added to them, as the panel
   * adds a value set by other means. */
  if (shown != NULL)
    {
      selected = g_strv_length ((char **) choices);
      for (guint i = 0; choices[i] != NULL; i++)
        if (g_str_equal (choices[i], shown))
          selected = i;
      if (choices[selected] == NULL)
        gtk_string_list_append (model, shown);
    }
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (model));
  g_object_unref (model);
  adw_combo_row_set_selected (ADW_COMBO_ROW (row), selected);
  return row;
}

static GtkWidget *
group (GtkWidget  *preferences,
       const char *title)
{
  GtkWidget *group = adw_preferences_group_new ();

  if (title != NULL)
    adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (preferences), ADW_PREFERENCES_GROUP (group));
  return group;
}

static GtkWidget *
settings_page (void)
{
  static const char * const login[] = { "Always restore", "Ask every time", "Do not restore", NULL };
  static const char * const keep[] = { "1 Day", "7 Days", "30 Days", "90 Days", "Forever", NULL };
  GtkWidget *preferences = adw_preferences_page_new ();
  GtkWidget *enabled = group (preferences, NULL);
  GtkWidget *when, *saved, *apps, *clear, *next;

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (enabled), lines[0]);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (enabled),
                             switch_row ("Save and Restore Apps",
                                         "Apps and their windows come back after you log out, "
                                         "restart or a crash"));
  when = group (preferences, "When to Restore");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (when),
                             combo_row ("Reopen Apps at Login",
                                        "The apps you had open when you logged out", login,
                                        NULL));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (when),
                             switch_row ("Restore After a Crash",
                                         "An app that closed unexpectedly gets its windows and "
                                         "documents back"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (when),
                             switch_row ("Restore on a Normal Launch",
                                         "Apps open as you left them, for example at the same "
                                         "window size, whenever you start them"));
  saved = group (preferences, "Saved Sessions");
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (saved), lines[1]);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (saved),
                             combo_row ("Keep Saved Sessions For", NULL, keep, lines[2]));
  clear = gtk_button_new_with_mnemonic ("_Clear Saved Sessions…");
  gtk_widget_add_css_class (clear, "destructive-action");
  gtk_widget_set_halign (clear, GTK_ALIGN_END);
  gtk_widget_set_margin_top (clear, 12);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (saved), clear);
  apps = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (apps), "Apps");
  adw_action_row_set_subtitle (ADW_ACTION_ROW (apps), "Choose which apps are saved and restored");
  next = gtk_image_new_from_icon_name ("go-next-symbolic");
  adw_action_row_add_suffix (ADW_ACTION_ROW (apps), next);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (apps), TRUE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group (preferences, NULL)), apps);
  return preferences;
}

static GtkWidget *
apps_page (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *search = gtk_search_entry_new ();
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_widget_set_valign (list, GTK_ALIGN_START);
  for (guint i = 3; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], "\t", 3);
      GtkWidget *row, *icon;

      if (g_strv_length (fields) != 3)
        continue;
      row = switch_row (fields[1], fields[2]);
      icon = gtk_image_new_from_icon_name (fields[0]);
      gtk_image_set_icon_size (GTK_IMAGE (icon), GTK_ICON_SIZE_LARGE);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      gtk_list_box_append (GTK_LIST_BOX (list), row);
    }
  gtk_box_append (GTK_BOX (box), search);
  gtk_box_append (GTK_BOX (box), list);
  adw_clamp_set_child (ADW_CLAMP (clamp), box);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), clamp);
  gtk_widget_set_vexpand (scrolled, TRUE);
  return scrolled;
}

static void
on_activate_cb (GApplication *app)
{
  GtkWidget *window = adw_application_window_new (GTK_APPLICATION (app));
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  gboolean apps = g_str_equal (page, "apps");

  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header),
                                   adw_window_title_new (apps ? "Apps" : "Session Restore", NULL));
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), apps ? apps_page () : settings_page ());
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 760);
  g_signal_connect (window, "realize", G_CALLBACK (on_realize_cb), NULL);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(AdwApplication) app = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  int status;

  if (argc != 3 || (strcmp (argv[1], "settings") != 0 && strcmp (argv[1], "apps") != 0))
    {
      g_printerr ("usage: bench-panel-baseline settings|apps ROWS\n");
      return 2;
    }
  if (!g_file_get_contents (argv[2], &contents, NULL, &error))
    {
      g_printerr ("bench-panel-baseline: %s\n", error->message);
      return 1;
    }
  page = argv[1];
  lines = g_strsplit (g_strchomp (contents), "\n", -1);
  if (g_strv_length (lines) < 3)
    {
      g_printerr ("bench-panel-baseline: %s: fewer than three lines\n", argv[2]);
      return 1;
    }

  app = adw_application_new ("org.gnome.SessionRestore.BenchBaseline", G_APPLICATION_DEFAULT_FLAGS);
  /* It has no resources: without a base path, GtkApplication adds no
   * icons folder to the icon theme, which can throw away the theme GTK
   * has just loaded on a worker thread and have the first icon shown load
   * it again on the main thread. The panel sets none either
   * (sr-panel-application.c). */
  g_application_set_resource_base_path (G_APPLICATION (app), NULL);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate_cb), NULL);
  status = g_application_run (G_APPLICATION (app), 1, argv);
  g_strfreev (lines);
  return status;
}
