// The one colour map of qkv: a weight in [0, 1] on viridis, which reads on dark and light
// backgrounds, on paper, on a projector and for the common kinds of colour blindness. The
// terminal's heatmap and the HTML page paint the same weight the same colour with it.
#pragma once

namespace qkv {

struct rgb8 {
    int r = 0, g = 0, b = 0;
};

// Viridis through its five stops at 0, ¼, ½, ¾ and 1 (matplotlib's #440154, #3b528b, #21918c,
// #5ec962, #fde725), straight lines between them. A weight below 0 or not a number is 0's colour,
// one above 1 is 1's: how a cell is painted, never a number of the lesson.
rgb8 viridis(float w);

}  // namespace qkv
