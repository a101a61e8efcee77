"""The panel in English at 360 px wide (narrowtest's cases; test_ui_german
runs them in German): every screen and dialog fits, no combo value
collapses to "…" and no row's description runs past three lines."""
from narrowtest import ENGLISH, NarrowChecks
from uitest import PanelTestCase


class NarrowTest(NarrowChecks, PanelTestCase):
    WORDS = ENGLISH
    SHOTS = 'english'
