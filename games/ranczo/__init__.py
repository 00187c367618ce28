"""Ranczo Party (Sylvie Barc's "Dragon"): build a 7x7 grid of farm animals and score the lines you complete."""
