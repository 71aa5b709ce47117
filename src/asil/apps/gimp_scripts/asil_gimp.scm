; ASIL's Script-Fu helpers, loaded once into the warm GIMP session (asil/apps/gimp.py).
; Python sends only calls of these procedures with literal, escaped arguments; the state goes
; back as JSON written to a file (the Script-Fu server's replies are capped at 64 KiB).

; ------------------------------------------------------------------ JSON writing
(define (asil-hex2 n)
  (let ((digits "0123456789abcdef"))
    (string (string-ref digits (quotient n 16)) (string-ref digits (remainder n 16)))))

(define (asil-str s)
  (let loop ((chars (string->list s)) (out '()))
    (if (null? chars)
        (apply string-append (append (list "\"") (reverse out) (list "\"")))
        (let* ((c (car chars)) (code (char->integer c)))
          (loop (cdr chars)
                (cons (cond ((char=? c #\") "\\\"")
                            ((char=? c #\\) "\\\\")
                            ((< code 32) (string-append "\\u00" (asil-hex2 code)))
                            (else (string c)))
                      out))))))

(define (asil-num x)
  (if (integer? x) (number->string (inexact->exact (round x)))
      (number->string (/ (round (* x 10000)) 10000.0))))

(define (asil-bool b) (if b "true" "false"))

(define (asil-join items sep)
  (if (null? items) ""
      (apply string-append (cons (car items) (map (lambda (i) (string-append sep i)) (cdr items))))))

(define (asil-arr items) (string-append "[" (asil-join items ",") "]"))

(define (asil-obj pairs)
  (asil-arr-like (map (lambda (p) (string-append (asil-str (car p)) ":" (cdr p))) pairs)))
(define (asil-arr-like items) (string-append "{" (asil-join items ",") "}"))

(define (asil-write path text)
  (let ((port (open-output-file path)))
    (display text port)
    (close-output-port port)
    #t))

; ------------------------------------------------------------------ reading the state
(define (asil-layers img) (vector->list (cadr (gimp-image-get-layers img))))

(define (asil-count d channel lo hi)
  (list-ref (gimp-drawable-histogram d channel (/ lo 255.0) (/ hi 255.0)) 4))

; Smallest (or largest) 8-bit level present in a channel, by bisecting histogram ranges
; between 0 and the mean (or the mean and 255).
(define (asil-min-level d channel hi)
  (let loop ((lo 0) (hi hi))
    (if (>= lo hi) lo
        (let ((mid (quotient (+ lo hi) 2)))
          (if (> (asil-count d channel 0 mid) 0) (loop lo mid) (loop (+ mid 1) hi))))))

(define (asil-max-level d channel lo)
  (let loop ((lo lo) (hi 255))
    (if (>= lo hi) lo
        (let ((mid (quotient (+ lo hi 1) 2)))
          (if (> (asil-count d channel mid 255) 0) (loop mid hi) (loop lo (- mid 1)))))))

(define (asil-channel-stats d channel name)
  (let* ((h (gimp-drawable-histogram d channel 0.0 1.0))
         (mean (car h)) (std (cadr h)) (pixels (list-ref h 3))
         (flat (< std 0.001))
         (low (if flat (round mean) (asil-min-level d channel (min 255 (inexact->exact (ceiling mean))))))
         (high (if flat (round mean) (asil-max-level d channel (max 0 (inexact->exact (floor mean)))))))
    (string-append (asil-str name) ":"
      (if (<= pixels 0) "null"
          (asil-obj (list (cons "mean" (asil-num mean))
                          (cons "std" (asil-num std))
                          (cons "min" (asil-num low))
                          (cons "max" (asil-num high))
                          (cons "pixels" (asil-num pixels))))))))

; Histograms only count selected pixels: lift the selection while measuring whole layers.
(define (asil-without-selection img thunk)
  (if (= (car (gimp-selection-is-empty img)) 1)
      (thunk)
      (let* ((saved (car (gimp-selection-save img))) (result (begin (gimp-selection-none img) (thunk))))
        (gimp-image-select-item img CHANNEL-OP-REPLACE saved)
        (gimp-image-remove-channel img saved)
        result)))

(define (asil-stats d)
  (let* ((color (= (car (gimp-drawable-is-rgb d)) 1))
         (alpha (= (car (gimp-drawable-has-alpha d)) 1))
         (channels (append (if color (list (cons 1 "red") (cons 2 "green") (cons 3 "blue")) (list (cons 0 "value")))
                           (if alpha (list (cons 4 "alpha")) '()))))
    (asil-arr-like (map (lambda (c) (asil-channel-stats d (car c) (cdr c))) channels))))

(define (asil-layer-json img layer index want-stats)
  (let* ((offsets (gimp-drawable-offsets layer))
         (text (= (car (gimp-item-is-text-layer layer)) 1))
         (base (list (cons "id" (asil-num layer))
                     (cons "index" (asil-num index))
                     (cons "name" (asil-str (car (gimp-item-get-name layer))))
                     (cons "width" (asil-num (car (gimp-drawable-width layer))))
                     (cons "height" (asil-num (car (gimp-drawable-height layer))))
                     (cons "offset_x" (asil-num (car offsets)))
                     (cons "offset_y" (asil-num (cadr offsets)))
                     (cons "opacity" (asil-num (car (gimp-layer-get-opacity layer))))
                     (cons "visible" (asil-bool (= (car (gimp-item-get-visible layer)) 1)))
                     (cons "mode" (asil-num (car (gimp-layer-get-mode layer))))
                     (cons "alpha" (asil-bool (= (car (gimp-drawable-has-alpha layer)) 1)))
                     (cons "group" (asil-bool (= (car (gimp-item-is-group layer)) 1)))
                     (cons "text" (if text (asil-str (car (gimp-text-layer-get-text layer))) "null")))))
    (asil-obj (if (and want-stats (= (car (gimp-item-is-group layer)) 0))
                  (append base (list (cons "stats" (asil-stats layer))))
                  base))))

(define (asil-page items offset limit)
  (let loop ((rest items) (i 0) (out '()))
    (cond ((null? rest) (reverse out))
          ((>= i (+ offset limit)) (reverse out))
          ((< i offset) (loop (cdr rest) (+ i 1) out))
          (else (loop (cdr rest) (+ i 1) (cons (cons i (car rest)) out))))))

; Write the image's state to PATH: size, mode, selection, all layer names, and one page of
; layers in full; pixel statistics for all but the layer ids in STATS-SKIP (Python caches those).
(define (asil-state img path offset limit stats-skip)
  (let* ((layers (asil-layers img))
         (bounds (gimp-selection-bounds img))
         (page (asil-page layers offset limit))
         (active (car (gimp-image-get-active-layer img))))
    (asil-write path
      (asil-obj
        (list (cons "width" (asil-num (car (gimp-image-width img))))
              (cons "height" (asil-num (car (gimp-image-height img))))
              (cons "mode" (asil-num (car (gimp-image-base-type img))))
              (cons "precision" (asil-num (car (gimp-image-get-precision img))))
              (cons "active" (if (> active 0) (asil-str (car (gimp-item-get-name active))) "null"))
              (cons "selection" (if (= (car bounds) 1) (asil-arr (map asil-num (cdr bounds))) "null"))
              (cons "names" (asil-arr (map (lambda (l) (asil-str (car (gimp-item-get-name l)))) layers)))
              (cons "ids" (asil-arr (map asil-num layers)))
              (cons "total" (asil-num (length layers)))
              (cons "layers" (asil-without-selection img
                               (lambda () (asil-arr (map (lambda (p) (asil-layer-json img (cdr p) (car p)
                                                                                     (not (memv (cdr p) stats-skip))))
                                                         page))))))))))

; ------------------------------------------------------------------ files
(define (asil-open path)
  (let ((img (car (gimp-file-load RUN-NONINTERACTIVE path path))))
    (gimp-image-undo-disable img)
    img))

(define (asil-close img) (gimp-image-delete img) #t)

(define (asil-save-xcf img path)
  (gimp-xcf-save 0 img (car (gimp-image-get-active-drawable img)) path path) #t)

; Export a flattened copy: the working image keeps its layers.
(define (asil-export img path kind quality)
  (let* ((copy (car (gimp-image-duplicate img)))
         (flat (car (gimp-image-merge-visible-layers copy CLIP-TO-IMAGE))))
    (if (string=? kind "jpeg")
        (begin (if (= (car (gimp-drawable-has-alpha flat)) 1) (gimp-layer-flatten flat))
               (file-jpeg-save RUN-NONINTERACTIVE copy flat path path quality 0 1 0 "" 0 1 0 2))
        (file-png-save2 RUN-NONINTERACTIVE copy flat path path 0 9 0 0 0 0 0 0 0))
    (gimp-image-delete copy)
    #t))

; ------------------------------------------------------------------ edits
(define (asil-color rgb) (gimp-context-set-foreground rgb))

(define (asil-add-layer img name width height x y opacity fill rgb position)
  (let ((layer (car (gimp-layer-new img width height RGBA-IMAGE name opacity LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img layer 0 position)
    (gimp-layer-set-offsets layer x y)
    (cond ((string=? fill "color") (gimp-context-set-foreground rgb) (gimp-drawable-fill layer FILL-FOREGROUND))
          ((string=? fill "white") (gimp-drawable-fill layer FILL-WHITE))
          ((string=? fill "transparent") (gimp-drawable-fill layer FILL-TRANSPARENT)))
    layer))

(define (asil-text-layer img text x y size font rgb name position)
  (gimp-context-set-foreground rgb)
  (let ((layer (car (gimp-text-layer-new img text font size UNIT-PIXEL))))
    (gimp-image-insert-layer img layer 0 position)
    (gimp-layer-set-offsets layer x y)
    (if (> (string-length name) 0) (gimp-item-set-name layer name))
    layer))

(define (asil-fill img layer rgb)
  (gimp-context-set-foreground rgb)
  (gimp-drawable-edit-fill layer FILL-FOREGROUND)
  #t)

(define (asil-blur img layer radius)
  (plug-in-gauss RUN-NONINTERACTIVE img layer radius radius 1) #t)

(define (asil-sharpen img layer radius amount)
  (plug-in-unsharp-mask RUN-NONINTERACTIVE img layer radius amount 0) #t)

(define (asil-set-offsets layer x y)
  (let ((now (gimp-drawable-offsets layer)))
    (gimp-layer-set-offsets layer (if x x (car now)) (if y y (cadr now)))
    #t))

(define (asil-layers-to-image img)
  (for-each (lambda (l) (gimp-layer-resize-to-image-size l)) (asil-layers img))
  #t)

(define (asil-gradient layer from to width)
  (gimp-context-set-foreground from)
  (gimp-context-set-background to)
  (gimp-context-set-gradient "FG to BG (RGB)")
  (gimp-drawable-edit-gradient-fill layer GRADIENT-LINEAR 0 FALSE 1 0 FALSE 0 0 (- width 1) 0)
  #t)

(define (asil-ellipse-layer img name width height x y opacity rgb)
  (let ((layer (asil-add-layer img name width height x y opacity "transparent" rgb 0)))
    (gimp-image-select-ellipse img CHANNEL-OP-REPLACE x y width height)
    (asil-fill img layer rgb)
    (gimp-selection-none img)
    layer))
